import type { FastifyInstance } from 'fastify'
import { connect } from 'node:net'

/** How long a probe may take, and how long its answer is reused. */
export const PROBE_TIMEOUT_MS = 1000
export const PROBE_CACHE_MS = 2000

/** Whether a TCP connection to the URL's host and port opens in time. */
export function canConnect (baseUrl: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const url = new URL(baseUrl)
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  const host = url.hostname.replace(/^\[|\]$/g, '')
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    const finish = (reachable: boolean) => {
      socket.destroy()
      resolve(reachable)
    }
    socket.setTimeout(timeoutMs, () => finish(false))
    socket.once('connect', () => finish(true))
    socket.once('error', () => finish(false))
  })
}

/**
 * The probes. A load balancer or an orchestrator calls them by the
 * instance's own address, so they answer whatever the Host header (they tell
 * nothing of the page and reach no backend).
 */
const LIVENESS_PATH = '/healthz'
const READINESS_PATH = '/readyz'
export const HEALTH_PATHS: readonly string[] = [LIVENESS_PATH, READINESS_PATH]

export interface HealthOptions {
  /** Named backends the edge depends on (base URLs); none configured means not ready. */
  readonly upstreams: Readonly<Record<string, string | null>>
}

/**
 * `/healthz`: the process answers. `/readyz`: every backend is configured and
 * accepts connections, so a load balancer sends traffic only where it can be
 * served. Probe answers are cached briefly so the endpoint cannot be used to
 * flood the backends. Neither names a backend's address.
 */
export async function health (app: FastifyInstance, options: HealthOptions): Promise<void> {
  let cached: { at: number, result: Promise<Record<string, boolean>> } | null = null

  function probeAll (): Promise<Record<string, boolean>> {
    if (cached !== null && Date.now() - cached.at < PROBE_CACHE_MS) return cached.result
    const result = Promise.all(Object.entries(options.upstreams).map(async ([name, url]) =>
      [name, url !== null && await canConnect(url)] as const
    )).then(Object.fromEntries)
    cached = { at: Date.now(), result }
    return result
  }

  app.get(LIVENESS_PATH, async () => ({ status: 'ok' }))

  app.get(READINESS_PATH, async (_request, reply) => {
    const upstreams = await probeAll()
    const ready = Object.values(upstreams).every(Boolean)
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not ready',
      upstreams: Object.fromEntries(Object.entries(upstreams).map(([name, ok]) => [name, ok ? 'reachable' : 'unreachable']))
    })
  })
}
