import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { ProxiedRoute } from '../../shared/accounts-routes.js'
import { EMBEDDED_SECRET_VARIABLE, embeddedSecretHeaders, newEmbeddedSecret } from '../../shared/embedded-secret.js'
import type { Env } from '../../shared/env-parsing.js'
import { freeLoopbackPort } from '../../shared/free-port.js'
import { loadReferenceConfig } from '../../reference/config.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../reference/http/exposed-routes.js'
import type { ReferenceMessage } from '../../reference/main.js'
import { METRICS_TOKEN_VARIABLE, REFERENCE_METRICS_PATH } from '../../reference/metrics/metrics-route.js'

/** How long the reference process gets to stop once told to. */
const STOP_GRACE_MS = 3000
/**
 * How long a scrape waits for the reference process's figures: well within
 * Prometheus's own scrape timeout (10 s by default), so that a stalled
 * service costs the scrape its figures, never the edge's.
 */
export const REFERENCE_METRICS_TIMEOUT_MS = 2000

export interface EmbeddedServices {
  /** Base URL of the reference services on loopback. */
  readonly url: string
  /** The secret every call to them carries (server/shared/embedded-secret.ts); they refuse a call without it. */
  readonly secret: string
  /** What the edge proxies under /accounts/ for them. */
  readonly accountsRoutes: readonly ProxiedRoute[]
  /** Resolves when the reference services accept requests. */
  readonly ready: Promise<void>
  onUnexpectedExit (listener: (code: number | null) => void): void
  /**
   * The reference process's figures in Prometheus text format, to serve
   * after the edge's own; '' when it does not answer in
   * REFERENCE_METRICS_TIMEOUT_MS or answers anything but 200, and always
   * without `metrics` (the child then keeps none).
   */
  metrics (): Promise<string>
  stop (): Promise<void>
}

/**
 * Starts the reference services in a child process, so that password hashing
 * and SQLite never stall the edge's event loop, and the edge talks to them
 * over real HTTP exactly as it would to an operator's backend. The edge
 * listens once `ready` resolves (server/edge/run-edge.ts), and /readyz reports whether
 * they still answer.
 */
export async function startEmbeddedServices (options: {
  env: Env
  accounts: boolean
  edgeAuth: boolean
  edgePort: number
  /** The built reference services' entry (dist/server/reference.js). */
  referenceScript: string
  /** Whether the edge keeps metrics (METRICS_PORT): only then does the reference process keep and serve its own. */
  metrics: boolean
}): Promise<EmbeddedServices> {
  // Validate here too, so a bad value stops the edge with one line before anything starts.
  loadReferenceConfig(options.env, options.edgePort)
  const port = await freeLoopbackPort()
  const services = [options.accounts ? 'accounts' : null, options.edgeAuth ? 'edge-auth' : null].filter(Boolean).join(',')
  // Made afresh at each start: only this process and the child know it (server/reference/metrics/metrics-route.ts says why).
  const metricsToken = options.metrics ? randomBytes(32).toString('base64url') : null
  // Likewise; an environment is readable by the same user only (/proc/<pid>/environ), as a socket file would be.
  const secret = newEmbeddedSecret()
  const child: ChildProcess = fork(options.referenceScript, [], {
    env: {
      ...options.env,
      PORT: String(options.edgePort),
      THRESHOLD_REFERENCE_PORT: String(port),
      THRESHOLD_REFERENCE_SERVICES: services,
      [EMBEDDED_SECRET_VARIABLE]: secret,
      ...(metricsToken === null ? {} : { [METRICS_TOKEN_VARIABLE]: metricsToken })
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })

  let stopping = false
  const exitListeners: Array<(code: number | null) => void> = []
  child.once('exit', (code) => {
    if (!stopping) for (const listener of exitListeners) listener(code)
  })

  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (message: ReferenceMessage) => {
      if (message.type === 'ready') resolve()
      else reject(new Error(message.message))
    })
    child.once('exit', (code) => reject(new Error(`the reference services exited with code ${code}`)))
  })
  ready.catch(() => {})

  const url = `http://127.0.0.1:${port}`
  return {
    url,
    secret,
    accountsRoutes: options.accounts ? REFERENCE_ACCOUNTS_ROUTES : [],
    ready,
    onUnexpectedExit (listener) { exitListeners.push(listener) },
    async metrics () {
      if (metricsToken === null) return ''
      try {
        const response = await fetch(`${url}${REFERENCE_METRICS_PATH}`, {
          headers: { authorization: `Bearer ${metricsToken}`, ...embeddedSecretHeaders(secret) },
          signal: AbortSignal.timeout(REFERENCE_METRICS_TIMEOUT_MS)
        })
        if (response.status !== 200) {
          await response.body?.cancel()
          return ''
        }
        return await response.text()
      } catch {
        // Not started yet, gone, or too slow: the edge's own figures still serve, and its readiness says the rest.
        return ''
      }
    },
    async stop () {
      stopping = true
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      // Closing the channel is the stop it obeys (server/reference/main.ts): it ignores signals, which may
      // have reached it from the process group while the edge still needed it.
      if (child.connected) child.disconnect()
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
      await exited
      clearTimeout(timer)
    }
  }
}
