import type { FastifyInstance } from 'fastify'
import type { UpstreamName, UpstreamProbes, UpstreamState } from '../upstream/upstream-probes.js'

/**
 * The probes. A load balancer or an orchestrator calls them by the
 * instance's own address, so they answer whatever the Host header (they tell
 * nothing of the page, and name no backend's address).
 */
const LIVENESS_PATH = '/healthz'
const READINESS_PATH = '/readyz'
export const HEALTH_PATHS: readonly string[] = [LIVENESS_PATH, READINESS_PATH]

export interface HealthOptions {
  readonly probes: UpstreamProbes
  /** READINESS_INCLUDES_UPSTREAMS: whether a configured backend that is down makes the instance unready. */
  readonly includeUpstreams: boolean
  /** Whether the instance is draining before a stop; by default never. */
  readonly draining?: () => boolean
}

/** The keys of /readyz's `upstreams`. */
const BODY_KEYS: Readonly<Record<UpstreamName, string>> = { accounts: 'accounts', 'edge-auth': 'edgeAuth' }

/**
 * Whether the instance can serve: the embedded reference service, this
 * instance's own, must answer; a configured backend, shared by every
 * instance, only with `includeUpstreams` (else one backend down would make
 * every instance unready at once: docs/operations.md, "Readiness").
 */
function isReady (states: readonly UpstreamState[], includeUpstreams: boolean): boolean {
  return states.every(({ upstream, result }) => result.up || (!upstream.embedded && !includeUpstreams))
}

/**
 * `/healthz`: the process answers. `/readyz`: the instance can serve (see
 * {@link isReady}); its body gives every upstream's state either way, `up`,
 * or `down` with a short reason. From the stop signal, through the drain,
 * /readyz answers 503 `stopping` without probing, while every other route
 * still serves: a balancer takes the instance out before it stops accepting
 * connections (docs/scale-out.md#rolling-restarts). /healthz stays 200: the
 * process is alive, and a liveness check must not kill it mid-drain.
 */
export async function health (app: FastifyInstance, options: HealthOptions): Promise<void> {
  app.get(LIVENESS_PATH, async () => ({ status: 'ok' }))

  app.get(READINESS_PATH, async (_request, reply) => {
    if (options.draining?.() === true) {
      return reply.code(503).header('cache-control', 'no-store').send({ status: 'stopping' })
    }
    const states = await options.probes.check()
    const ready = isReady(states, options.includeUpstreams)
    return reply.code(ready ? 200 : 503).header('cache-control', 'no-store').send({
      status: ready ? 'ready' : 'not ready',
      upstreams: Object.fromEntries(states.map(({ upstream, result }) => [
        BODY_KEYS[upstream.name],
        result.up ? { state: 'up' } : { state: 'down', reason: result.reason }
      ]))
    })
  })
}
