// The embedded reference services as a process of their own: the accounts
// service and the domain-check responder on a loopback port the edge proxies
// to, and, when asked, the local-network accounts listener.
//
// Started by the edge (server/embedded-services.ts) with an IPC channel, or
// alone as `npm run local-accounts` for local-network mode.
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import { ConfigError } from '../env-parsing.js'
import { exitAfterLogging, logCompletedRequests, loggerOptions, REQUEST_ID_HEADER, requestIdFor } from '../logger.js'
import { referenceAccountsApp } from './app.js'
import { loadReferenceConfig } from './config.js'
import { DEFAULT_LOCAL_ACCOUNTS_PORT } from '../../client/lib/local-accounts.js'
import { edgeAuthResponder } from './edge-auth-responder.js'
import { localAccountsApp } from './local-accounts.js'
import { createReferenceServices, type ReferenceServices } from './services.js'

/** Messages to the edge process. */
export type ReferenceMessage = { type: 'ready', url: string } | { type: 'failed', message: string }

const env = process.env
const localOnly = process.argv.includes('--local-accounts')
const wanted = new Set((env.THRESHOLD_REFERENCE_SERVICES ?? 'accounts,edge-auth').split(','))

function send (message: ReferenceMessage): void {
  if (process.send !== undefined) process.send(message)
}

async function main (): Promise<void> {
  let config
  try {
    config = loadReferenceConfig(env, Number(env.PORT ?? 8080) || 8080)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    send({ type: 'failed', message: error.message })
    console.error(`threshold: invalid configuration: ${error.message}`)
    process.exit(1)
  }
  // Same redaction and path-only URLs as the edge; the edge's request id is kept for correlation.
  const logger = { ...loggerOptions(config.logLevel), base: { service: 'reference' } }
  const servers: FastifyInstance[] = []

  const internal = Fastify({
    logger,
    trustProxy: 'loopback',
    bodyLimit: 16 * 1024,
    requestIdHeader: false,
    genReqId: (request) => requestIdFor(request.headers[REQUEST_ID_HEADER]),
    logController: new LogController({ disableRequestLogging: true })
  })
  logCompletedRequests(internal)
  let services: ReferenceServices
  try {
    services = await createReferenceServices(config, internal.log)
  } catch (error) {
    // Typically DATABASE_URL unreachable or refusing the login: say so in one line and stop.
    internal.log.fatal({ err: error }, 'the reference services could not open their store')
    send({ type: 'failed', message: `the reference services could not open their store: ${(error as Error).message}` })
    return exitAfterLogging(internal.log, 1)
  }
  servers.push(internal)

  if (!localOnly) {
    if (wanted.has('accounts')) await internal.register(referenceAccountsApp, { accounts: services.accounts, tokens: services.tokens, sso: services.sso })
    if (wanted.has('edge-auth')) {
      await internal.register(edgeAuthResponder, {
        authorizedDomains: config.authorizedDomains,
        unauthorizedDomains: config.unauthorizedDomains
      })
    }
    await internal.listen({ host: '127.0.0.1', port: Number(env.THRESHOLD_REFERENCE_PORT ?? 0) })
  }

  const localPort = config.localAccountsPort ?? (localOnly ? DEFAULT_LOCAL_ACCOUNTS_PORT : null)
  if (localPort !== null) {
    const local = Fastify({ logger, bodyLimit: 16 * 1024 })
    await local.register(localAccountsApp, {
      accounts: services.accounts,
      allowedOrigins: config.localAccountsAllowedOrigins,
      perMinute: Number(env.RATE_LIMIT_PER_MINUTE ?? 30) || 30
    })
    await local.listen({ host: env.LOCAL_ACCOUNTS_HOST ?? '0.0.0.0', port: localPort })
    servers.push(local)
  }

  async function stop (): Promise<void> {
    await Promise.all(servers.map((server) => server.close()))
    await services.close()
    exitAfterLogging(internal.log, 0)
  }
  process.once('SIGTERM', () => { void stop() })
  process.once('SIGINT', () => { void stop() })
  // The edge went away without telling us: do not outlive it.
  process.once('disconnect', () => { void stop() })

  if (!localOnly) {
    const address = internal.server.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    send({ type: 'ready', url: `http://127.0.0.1:${port}` })
  }
}

await main()
