import type { FastifyReply, FastifyRequest } from 'fastify'
import type { WindowCounts } from '../challenge/window-counts.js'
import { refusedCalls } from '../http/refused-calls.js'
import { rateLimitBucketName } from '../http/rate-limit.js'

/** The refresh call, as the accounts proxy's routes name it. */
const REFRESH_CALL = 'token/refresh'

/**
 * Exchanges of one refresh token a minute. A token is spent by its first
 * use, and presented again only within the reuse grace (a retry after a
 * lost answer, a product's parallel calls): a handful is every honest use.
 */
export const REFRESHES_PER_TOKEN_PER_MINUTE = 10

/**
 * Refreshes from one address a minute, accepted or not, as a multiple of
 * RATE_LIMIT_PER_MINUTE: a product's server refreshes for all its visitors
 * (10,000 visitors active, one refresh each per 15-minute token: ~670 a
 * minute), and this only caps the load one address can put on the service.
 */
const REFRESH_CEILING_FACTOR = 100

export interface RefreshLimitOptions {
  readonly counts: WindowCounts
  readonly addressKey: Buffer
  /** RATE_LIMIT_PER_MINUTE: refused refreshes allowed per address a minute. */
  readonly perMinute: number
  /** Where the proxy's routes are mounted (`/accounts`). */
  readonly prefix: string
}

/**
 * The limits of `token/refresh` (docs/security.md, "Rate limits"), in place
 * of the per-address allowance of the other calls: a product's server
 * refreshing its visitors' sessions calls from one address for all of
 * them, and must not exhaust a visitor's 30 a minute, nor share it with
 * visitors behind the same address. The edge cannot tell a product's
 * server from a visitor (both post the token; a browser through the cookie),
 * so it limits what matters instead:
 * - refused refreshes per address (an unknown, spent or revoked token):
 *   RATE_LIMIT_PER_MINUTE a minute, so that guessing tokens stays as slow as
 *   guessing passwords; calls in flight count as refused until answered;
 * - uses of one token (REFRESHES_PER_TOKEN_PER_MINUTE), by its keyed hash;
 * - all refreshes per address, REFRESH_CEILING_FACTOR times the allowance.
 */
export function refreshLimit (options: RefreshLimitOptions) {
  const refused = refusedCalls({
    group: 'refresh',
    counts: options.counts,
    addressKey: options.addressKey,
    limits: { unaccepted: options.perMinute, all: options.perMinute * REFRESH_CEILING_FACTOR },
    accepted: (status) => status >= 200 && status <= 299
  })
  const isRefresh = (request: FastifyRequest): boolean => request.routeOptions.url === `${options.prefix}/${REFRESH_CALL}`

  /** The refresh token a call names (the body's, or the cookie's put there by server/edge/sessions/token-answers.ts), if any. */
  function tokenOf (request: FastifyRequest): string | null {
    if (!Buffer.isBuffer(request.body)) return null
    try {
      const body = JSON.parse(request.body.toString('utf8')) as unknown
      const token = body !== null && typeof body === 'object' ? (body as { refresh?: unknown }).refresh : undefined
      return typeof token === 'string' && token !== '' ? token : null
    } catch {
      return null
    }
  }

  return {
    /** For the per-address rate limit's allowList: the refresh is limited here instead. */
    exempt: isRefresh,
    /** After the token is filled in from the cookie: refused with 429 over a limit, before any call to the service. */
    preHandler: async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      if (!isRefresh(request)) return undefined
      // Returning the reply ends the request's hooks there (Fastify's early answer from an async hook).
      if (await refused.refuse(request, reply)) return reply
      const token = tokenOf(request)
      // Without a token the service refuses it, and it counts as refused.
      if (token === null) return undefined
      const key = `refresh-token:${rateLimitBucketName(options.addressKey, `refresh-token:${token}`)}`
      await options.counts.add([key], 1)
      const [uses = 0] = await options.counts.sums([{ key, windowMinutes: 1 }])
      if (uses <= REFRESHES_PER_TOKEN_PER_MINUTE) return undefined
      request.server.metrics?.rateLimited('accounts')
      return await reply.code(429).header('retry-after', '60')
        .send({ error: request.server.messagesFor(request).text('server.tooManyRequests', { seconds: 60 }) })
    },
    onResponse: async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (isRefresh(request)) await refused.noteAnswer(request, reply.statusCode)
    }
  }
}

export type RefreshLimit = ReturnType<typeof refreshLimit>
