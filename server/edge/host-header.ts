import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { HttpError } from './http-error.js'

/**
 * A host as a Host header names it: a DNS name (underscores allowed, as
 * container names have them) or an IPv4 address, or an IPv6 address in
 * brackets, with an optional port. Nothing a URL could read as a path,
 * credentials or a second host.
 */
const HOST = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/

/**
 * Whether a request names exactly one valid host. RFC 9112 §3.2 has a server
 * answer 400 to a request with no Host header, several, or an invalid one
 * (HTTP/1.0 requests may omit it); the edge also passes the host on to the
 * backends as X-Forwarded-Host, where a backend may build links from it.
 */
export function hasValidHostHeader (request: IncomingMessage): boolean {
  const host = request.headers.host
  if (host === undefined) return request.httpVersion === '1.0'
  if (!HOST.test(host)) return false
  // Node keeps the first of several Host headers: count them in the raw list.
  const raw = request.rawHeaders
  let seen = 0
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!
    if (name.length === 4 && name.toLowerCase() === 'host' && ++seen > 1) return false
  }
  return true
}

/**
 * An onRequest hook refusing with 400 a request whose host is not valid, as
 * sent and as the edge will state it to the backends (taken from
 * X-Forwarded-Host when a trusted proxy sends one).
 */
export function rejectInvalidHost (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const stated = request.host as string | undefined
  const valid = hasValidHostHeader(request.raw) && (stated === undefined || stated === '' || HOST.test(stated))
  done(valid ? undefined : new HttpError(400, 'The Host header is not valid.'))
}
