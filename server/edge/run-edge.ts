import type { FastifyInstance } from 'fastify'
import { fileURLToPath } from 'node:url'
import { ACCOUNTS_API_VERSION } from '../../common/accounts-paths.js'
import { SPEC_ACCOUNTS_ROUTES } from '../shared/accounts-routes.js'
import { ConfigError, loadServerConfig } from './config.js'
import type { EmbeddedServices } from './embedded-services.js'
import { exitAfterLogging } from '../shared/logger.js'
import { startMetricsListener } from './metrics-listener.js'
import { createServer } from './server.js'

/** After a stop signal, the process exits within this time even if requests hang. */
export const SHUTDOWN_DEADLINE_MS = 9_000

function stopWithConfigError (error: unknown): never {
  if (error instanceof ConfigError) {
    console.error(`threshold: invalid configuration: ${error.message}`)
    process.exit(1)
  }
  throw error
}

export interface RunEdgeOptions {
  readonly env: NodeJS.ProcessEnv
  /** What Node answered when server/edge/main.ts turned on its compile cache, for the start's log line. */
  readonly compileCache: string
}

/**
 * The edge as a process: configuration from the environment, the embedded
 * reference services when no backends are configured, the server, the stop
 * signals. Resolves once the server listens. Built into dist/server/edge.cjs,
 * which server/edge/main.ts loads.
 */
export async function runEdge ({ env, compileCache }: RunEdgeOptions): Promise<FastifyInstance> {
  let config
  try {
    config = loadServerConfig(env)
  } catch (error) {
    stopWithConfigError(error)
  }

  let embedded: EmbeddedServices | null = null
  if (config.accountsUrl === null || config.edgeAuthUrl === null) {
    try {
      const { startEmbeddedServices } = await import('./embedded-services.js')
      embedded = await startEmbeddedServices({
        env,
        accounts: config.accountsUrl === null,
        edgeAuth: config.edgeAuthUrl === null,
        edgePort: config.port,
        metrics: config.metricsPort !== null,
        // Beside this file in dist/server; the bundle may put the module starting it in a chunk folder.
        referenceScript: fileURLToPath(new URL('./reference.js', import.meta.url))
      })
    } catch (error) {
      stopWithConfigError(error)
    }
  }

  const server = await createServer({
    config,
    publicDir: fileURLToPath(new URL('../public/', import.meta.url)),
    accountsUpstream: config.accountsUrl ?? embedded!.url,
    accountsRoutes: config.accountsUrl === null ? embedded!.accountsRoutes : SPEC_ACCOUNTS_ROUTES,
    edgeAuthUpstream: config.edgeAuthUrl ?? embedded!.url,
    passwordResetCompletion: config.accountsUrl === null,
    embeddedSecret: embedded?.secret ?? null
  })

  let stopping = false
  async function stop (signal: NodeJS.Signals): Promise<void> {
    if (stopping) return
    stopping = true
    server.log.info({ signal }, 'stopping: finishing requests in flight')
    const deadline = setTimeout(() => {
      server.log.error('requests still running at the shutdown deadline; exiting')
      exitAfterLogging(server.log, 1)
    }, SHUTDOWN_DEADLINE_MS)
    deadline.unref()
    await server.close()
    await embedded?.stop()
    server.log.info('stopped')
    exitAfterLogging(server.log, 0)
  }
  process.once('SIGTERM', (signal) => { void stop(signal) })
  process.once('SIGINT', (signal) => { void stop(signal) })
  embedded?.onUnexpectedExit((code) => {
    server.log.fatal({ code }, 'the embedded reference services stopped unexpectedly')
    exitAfterLogging(server.log, 1)
  })

  // Before the public port: a taken METRICS_PORT stops the start before any page is served.
  if (config.metricsPort !== null && server.metrics !== null) {
    const metricsListener = await startMetricsListener({
      metrics: server.metrics,
      port: config.metricsPort,
      host: config.host,
      // The embedded reference service's own figures (threshold_reference_*), fetched from its process at each scrape.
      ...(embedded === null ? {} : { extraMetrics: async () => await embedded!.metrics() }),
      onExtraFailure: (error) => server.log.warn({ err: error }, 'extra metrics left out of a scrape')
    }).catch(async (error: unknown) => {
      await embedded?.stop()
      return stopWithConfigError(error)
    })
    server.addHook('onClose', async () => metricsListener.close())
    server.log.info({ metricsPort: metricsListener.port }, 'metrics listening')
  }
  await server.listen({ port: config.port, host: config.host })
  // From the process's start (Node's time origin) to listening, as operators see it.
  // accountsApi: the version of docs/accounts-api.openapi.yaml this edge speaks, for an operator matching it to a backend.
  server.log.info({ startMs: Math.round(performance.now()), compileCache, node: process.version, accountsApi: ACCOUNTS_API_VERSION }, 'started')
  return server
}
