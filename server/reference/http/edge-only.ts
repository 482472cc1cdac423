import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { EMBEDDED_SECRET_HEADER } from '../../shared/embedded-secret.js'
import { requestLocale } from './answers.js'
import { say } from '../languages/answer-texts.js'

/** What the edge states about a client; only the edge may (server/reference/server.ts trusts them from loopback). */
const FORWARDING_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded'] as const

function digest (value: string): Buffer {
  return createHash('sha256').update(value).digest()
}

/**
 * Refuses, with 403 and before any route, a request to the services'
 * loopback port that does not carry the edge's secret
 * (server/shared/embedded-secret.ts): every process of the host reaches
 * loopback, and a request from one of them could otherwise state any
 * client address in X-Forwarded-For (to get around the login throttles of
 * an address) and skip the edge's own controls (its rate limit, the
 * challenge, the domain check). The forwarding headers of a refused
 * request are dropped first, so that not even its log line believes them.
 * `secret` null: no edge calls this server, and every request is refused.
 */
export function acceptOnlyTheEdge (app: FastifyInstance, secret: string | null): void {
  const expected = secret === null ? null : digest(secret)
  app.addHook('onRequest', async (request, reply) => {
    const presented = request.headers[EMBEDDED_SECRET_HEADER]
    if (expected !== null && typeof presented === 'string' && timingSafeEqual(digest(presented), expected)) return
    for (const name of FORWARDING_HEADERS) delete request.raw.headers[name]
    request.log.warn('a request without the edge\'s secret was refused')
    return await reply.code(403).header('cache-control', 'no-store')
      .send({ error: say({ locale: requestLocale(request) }, 'request.edgeOnly') })
  })
}
