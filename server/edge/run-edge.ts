import type { FastifyInstance } from 'fastify'
import { fileURLToPath } from 'node:url'
import { ACCOUNTS_API_VERSION } from '../../common/http/accounts-paths.js'
import { SPEC_ACCOUNTS_ROUTES } from '../shared/accounts-routes.js'
import { ConfigError, loadServerConfig, type ServerConfig } from './config.js'
import type { EmbeddedServices } from './upstream/embedded-services.js'
import { exitAfterLogging } from '../shared/logger.js'
import { startMetricsListener } from './metrics/metrics-listener.js'
import { createServer } from './server.js'

/** After the drain (DRAIN_SECONDS), the process exits within this time even if requests hang. */
export const SHUTDOWN_DEADLINE_MS = 9_000

/**
 * How long connections accepted just before the listener closed get to
 * deliver their request before idle connections are closed.
 */
const LAST_REQUESTS_MS = 500

/**
 * fastify.close(), except that connections without a request are closed
 * LAST_REQUESTS_MS after the listener rather than with it: Node's
 * server.close() closes them at once, and one accepted a moment before,
 * whose request is still unread, would be reset under the balancer that
 * sent it (a POST it does not resend). Each request read meanwhile is
 * answered and closes its connection (server.ts's drain).
 */
async function closeAfterLastRequests (server: FastifyInstance): Promise<void> {
  const http = server.server
  const closeIdleConnections = http.closeIdleConnections.bind(http)
  http.closeIdleConnections = () => {}
  const closed = server.close()
  await new Promise((resolve) => setTimeout(resolve, LAST_REQUESTS_MS))
  http.closeIdleConnections = closeIdleConnections
  closeIdleConnections()
  await closed
}

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
  let config: ServerConfig
  try {
    config = loadServerConfig(env)
  } catch (error) {
    stopWithConfigError(error)
  }

  let embedded: EmbeddedServices | null = null
  if (config.accountsUrl === null || config.edgeAuthUrl === null) {
    try {
      const { startEmbeddedServices } = await import('./upstream/embedded-services.js')
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

  let listening = false
  let stopping = false
  let endDrain = (): void => {}
  /**
   * SIGTERM, from a supervisor or an orchestrator: drain first (server.ts's
   * startDraining) for DRAIN_SECONDS, serving every request, so that the
   * balancer takes the instance out before it stops accepting connections;
   * then stop accepting, finish the requests in flight, close the embedded
   * services and exit 0. SIGINT, from a person at a terminal, has no balancer
   * to wait for and skips the drain; so does a second signal during the drain.
   */
  async function stop (signal: NodeJS.Signals): Promise<void> {
    if (stopping) {
      endDrain()
      return
    }
    stopping = true
    const drainMs = signal === 'SIGTERM' && listening ? config.drainSeconds * 1000 : 0
    server.startDraining()
    const deadline = setTimeout(() => {
      server.log.error('requests still running at the shutdown deadline; exiting')
      exitAfterLogging(server.log, 1)
    }, drainMs + SHUTDOWN_DEADLINE_MS)
    deadline.unref()
    if (drainMs > 0) {
      server.log.info({ signal, drainSeconds: config.drainSeconds }, 'stopping: draining, /readyz answers 503')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs)
        endDrain = () => { clearTimeout(timer); resolve() }
      })
    }
    server.log.info({ signal }, 'stopping: finishing requests in flight')
    // Right after the event loop's poll phase has accepted the connections
    // waiting in the kernel's queue: closing the listener resets those still
    // queued, after the balancer has sent their request.
    await new Promise((resolve) => setImmediate(resolve))
    await closeAfterLastRequests(server)
    await embedded?.stop()
    server.log.info('stopped')
    exitAfterLogging(server.log, 0)
  }
  process.on('SIGTERM', (signal) => { void stop(signal) })
  process.on('SIGINT', (signal) => { void stop(signal) })
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
      ...(embedded === null ? {} : { extraMetrics: async () => await embedded.metrics() }),
      onExtraFailure: (error) => server.log.warn({ err: error }, 'extra metrics left out of a scrape')
    }).catch(async (error: unknown) => {
      await embedded?.stop()
      return stopWithConfigError(error)
    })
    server.addHook('onClose', async () => metricsListener.close())
    server.log.info({ metricsPort: metricsListener.port }, 'metrics listening')
  }
  // The public port opens only once the embedded service answers, so that a
  // new instance takes no traffic it cannot serve. Not listening is what
  // every balancer understands: nginx, which has no active health checks,
  // sends a refused connection's request, whatever its method, to another
  // instance (nothing was sent), where a listening edge answering 503, or
  // holding sign-in calls, would reach visitors. /healthz is not answered
  // meanwhile: a liveness check must allow for the start (docs/scale-out.md#rolling-restarts).
  if (embedded !== null) {
    try {
      await embedded.ready
    } catch {
      // It failed and exits: the listener of its exit above logs why and ends the process.
      return server
    }
  }
  if (stopping) return server
  await server.listen({ port: config.port, host: config.host })
  listening = true
  // From the process's start (Node's time origin) to listening, as operators see it.
  // accountsApi: the version of docs/accounts-api.openapi.yaml this edge speaks, for an operator matching it to a backend.
  server.log.info({ startMs: Math.round(performance.now()), compileCache, node: process.version, accountsApi: ACCOUNTS_API_VERSION }, 'started')
  return server
}
