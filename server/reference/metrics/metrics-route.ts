import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { requestLocale } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import type { ReferenceMetrics } from './metrics.js'

/**
 * Where the edge reads the reference service's figures, on the service's
 * loopback listener. Never proxied: the edge proxies only the paths
 * server/reference/http/exposed-routes.ts lists, and this is not one of them.
 */
export const REFERENCE_METRICS_PATH = '/metrics'

/**
 * The variable that carries the edge's per-start token to the forked
 * service; without it the route is not served (the service started alone,
 * `npm run local-accounts`, has nobody to read it).
 */
export const METRICS_TOKEN_VARIABLE = 'THRESHOLD_REFERENCE_METRICS_TOKEN'

function digest (value: string): Buffer {
  return createHash('sha256').update(value).digest()
}

/**
 * `GET /metrics` with `Authorization: Bearer <token>`. The listener is on
 * loopback only, but every process of the host reaches loopback (a sidecar,
 * another user's program); the token, made afresh at each start and known
 * only to the edge and this process, keeps the figures to the edge at the
 * cost of one header. A missing or wrong token answers 401.
 */
export async function referenceMetricsRoute (app: FastifyInstance, options: { metrics: ReferenceMetrics, token: string }): Promise<void> {
  const expected = digest(options.token)
  // A scrape every few seconds would otherwise fill the log with request lines.
  app.get(REFERENCE_METRICS_PATH, { logLevel: 'warn' }, async (request, reply) => {
    const presented = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1]
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      request.log.warn('a metrics request without the edge\'s token was refused')
      return reply.code(401).header('cache-control', 'no-store').send({ error: say({ locale: requestLocale(request) }, 'request.metricsForEdgeOnly') })
    }
    return reply.header('content-type', options.metrics.contentType).header('cache-control', 'no-store').send(await options.metrics.text())
  })
}
