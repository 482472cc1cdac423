// The embedded reference services as a process of their own: the accounts
// service and the domain-check responder on a loopback port the edge proxies
// to, and, when asked, the local-network accounts listener.
//
// Started by the edge (server/edge/upstream/embedded-services.ts) with an IPC channel, or
// alone as `npm run local-accounts` for local-network mode.
import type { FastifyInstance } from 'fastify'
import { DEFAULT_LOCAL_ACCOUNTS_PORT } from '../../common/sign-in/local-accounts.js'
import { EMBEDDED_SECRET_VARIABLE } from '../shared/embedded-secret.js'
import { ConfigError } from '../shared/env-parsing.js'
import { exitAfterLogging, loggerOptions } from '../shared/logger.js'
import { exitOnUnsupportedNode } from '../shared/supported-node.js'
import { loadReferenceConfig } from './config.js'
import { METRICS_TOKEN_VARIABLE } from './metrics/metrics-route.js'
import { buildLocalAccountsServer, buildReferenceServer, ReferenceStoreError, type ReferenceServiceName } from './server.js'

/** Messages to the edge process. */
export type ReferenceMessage = { type: 'ready', url: string } | { type: 'failed', message: string }

const env = process.env
const localOnly = process.argv.includes('--local-accounts')
const wanted = new Set((env.THRESHOLD_REFERENCE_SERVICES ?? 'accounts,edge-auth').split(',') as ReferenceServiceName[])

function send (message: ReferenceMessage): void {
  if (process.send !== undefined) process.send(message)
}

async function main (): Promise<void> {
  exitOnUnsupportedNode()
  let config
  try {
    config = loadReferenceConfig(env, Number(env.PORT ?? 8080) || 8080)
    // Behind the edge, its loopback port answers only the edge: without the edge's secret, it would answer nobody.
    if (!localOnly && (env[EMBEDDED_SECRET_VARIABLE] ?? '') === '') {
      throw new ConfigError(EMBEDDED_SECRET_VARIABLE, 'is not set: the reference services are started by the edge (npm start), or alone with --local-accounts (npm run local-accounts)')
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    send({ type: 'failed', message: error.message })
    console.error(`threshold: invalid configuration: ${error.message}`)
    process.exit(1)
  }
  // Same redaction and path-only URLs as the edge; the edge's request id is kept for correlation.
  const logger = { ...loggerOptions(config.logLevel), base: { service: 'reference' } }
  let reference
  try {
    reference = await buildReferenceServer({
      config,
      logger,
      serve: localOnly ? new Set() : wanted,
      metricsToken: localOnly ? null : env[METRICS_TOKEN_VARIABLE] ?? null,
      embeddedSecret: localOnly ? null : env[EMBEDDED_SECRET_VARIABLE] ?? null
    })
  } catch (error) {
    if (error instanceof ConfigError) {
      send({ type: 'failed', message: error.message })
      console.error(`threshold: invalid configuration: ${error.message}`)
      process.exit(1)
    }
    if (!(error instanceof ReferenceStoreError)) throw error
    send({ type: 'failed', message: error.message })
    return exitAfterLogging(error.log, 1)
  }
  const { app: internal } = reference
  // Closed in order at the stop: the local listener before the reference server, which closes the store.
  const servers: FastifyInstance[] = []

  if (!localOnly) await internal.listen({ host: '127.0.0.1', port: Number(env.THRESHOLD_REFERENCE_PORT ?? 0) })

  const localPort = config.localAccountsPort ?? (localOnly ? DEFAULT_LOCAL_ACCOUNTS_PORT : null)
  if (localPort !== null) {
    const local = await buildLocalAccountsServer({
      services: reference.services,
      logger,
      perMinute: Number(env.RATE_LIMIT_PER_MINUTE ?? 30) || 30
    })
    await local.listen({ host: env.LOCAL_ACCOUNTS_HOST ?? '0.0.0.0', port: localPort })
    servers.push(local)
  }
  servers.push(internal)

  async function stop (): Promise<void> {
    for (const server of servers) await server.close()
    exitAfterLogging(internal.log, 0)
  }
  if (process.send === undefined) {
    process.once('SIGTERM', () => { void stop() })
    process.once('SIGINT', () => { void stop() })
  } else {
    // Started by the edge, which stops it by closing the channel once its own drain is over. A signal
    // sent to the whole process group (Ctrl-C in a terminal, `timeout`, a supervisor that signals every
    // process) reaches this one too: obeyed, it would leave the draining edge without its service.
    const leaveToTheEdge = (signal: NodeJS.Signals): void => {
      internal.log.info({ signal }, 'the edge stops this process once it has drained')
    }
    process.on('SIGTERM', leaveToTheEdge)
    process.on('SIGINT', leaveToTheEdge)
  }
  // The edge is done with us, or went away without telling us: do not outlive it.
  process.once('disconnect', () => { void stop() })

  if (!localOnly) {
    const address = internal.server.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    send({ type: 'ready', url: `http://127.0.0.1:${port}` })
  }
}

await main()
