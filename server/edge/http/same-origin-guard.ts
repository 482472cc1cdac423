import type { FastifyRequest } from 'fastify'
import { HttpError } from './http-error.js'

/**
 * Whether a state-changing request comes from the page's own origin.
 *
 * Browsers say where a request comes from in `Sec-Fetch-Site` (all current
 * engines) and, for every POST, in `Origin`. A request carrying neither comes
 * from something that is not a browser, which cannot ride on a visitor's
 * cookies, so it is let through. This is what stops CSRF through "simple"
 * cross-site requests such as a text/plain form post.
 */
function isSameOriginRequest (request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined) return site === 'same-origin'
  const origin = request.headers.origin
  if (origin === undefined) return true
  return origin.toLowerCase() === `${request.protocol}://${request.host}`.toLowerCase()
}

/**
 * Whether a request comes from a browser: it says where it comes from
 * (`Sec-Fetch-Site`, which no script can set or remove, or `Origin`, which
 * browsers send on every POST). Anything else is a server or a tool.
 */
export function isBrowserRequest (request: FastifyRequest): boolean {
  return request.headers['sec-fetch-site'] !== undefined || request.headers.origin !== undefined
}

/** An onRequest hook refusing cross-site requests with 403. */
export async function rejectCrossSiteRequests (request: FastifyRequest): Promise<void> {
  if (!isSameOriginRequest(request)) throw new HttpError(403, 'server.crossSite')
}
