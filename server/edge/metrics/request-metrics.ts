import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { performance } from 'node:perf_hooks'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import type { HotPathHandler } from '../page/hot-path.js'
import { methodLabel, type EdgeMetrics, type RouteLabel } from './metrics.js'

/**
 * The request counter and duration histogram: on the hot path (the page
 * and its assets, answered outside Fastify) and for every request Fastify
 * answers. The route label is the matched route, never the path a client
 * sent: an unknown path, or a host the edge does not serve, is `other`.
 */

const FIXED_ROUTES: Readonly<Record<string, RouteLabel>> = {
  '/': 'page',
  '/assets/*': 'assets',
  '/healthz': 'healthz',
  '/readyz': 'readyz',
  '/.well-known/webauthn': 'well_known_webauthn',
  [CHECK_DOMAIN_AUTHORIZATION_PATH]: 'domain_check'
}

/** The route label of a Fastify route (`routeOptions.url`), given the accounts paths the edge proxies. */
function routeLabel (routeUrl: string | undefined, accountsPaths: ReadonlySet<string>): RouteLabel {
  if (routeUrl === undefined) return 'other'
  const fixed = FIXED_ROUTES[routeUrl]
  if (fixed !== undefined) return fixed
  if (routeUrl.startsWith('/accounts/')) {
    const path = routeUrl.slice('/accounts/'.length)
    if (accountsPaths.has(path)) return `accounts/${path}`
  }
  return 'other'
}

/**
 * The hot path, counted: the time is that of producing the answer (it is
 * written whole from memory), taken only for requests the hot path answers.
 */
export function countedHotPath (hotPath: HotPathHandler, metrics: EdgeMetrics): HotPathHandler {
  return function countedHotPathHandler (request, response) {
    const start = performance.now()
    const served = hotPath(request, response)
    if (served !== false) metrics.request(served, methodLabel(request.method), response.statusCode, (performance.now() - start) / 1000)
    return served
  }
}

/**
 * An onResponse hook counting every answer Fastify sends, those of the page
 * routes included (server/edge/page/page-routes.ts hands requests to the uncounted hot path).
 * A 421 is a host the edge does not serve, whatever route it named.
 */
export function countFastifyRequests (app: FastifyInstance, metrics: EdgeMetrics, accountsPaths: ReadonlySet<string>): void {
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const status = reply.statusCode
    const route = status === 421 ? 'other' : routeLabel(request.routeOptions.url, accountsPaths)
    metrics.request(route, methodLabel(request.method), status, reply.elapsedTime / 1000)
  })
}
