import type { FastifyReply, FastifyRequest } from 'fastify'
import type { WindowCounts } from '../challenge/window-counts.js'
import { clientAddress, rateLimitKey } from './client-address.js'
import { rateLimitBucketName } from './rate-limit.js'

/** The one-minute window every count here is kept in. */
const WINDOW_MINUTES = 1
const WINDOW_SECONDS = 60

/**
 * How many calls, beyond the ones the backend accepted, a client address may
 * have had in the last minute before its next is refused with 429, and how
 * many in all. The calls it guards are made by servers for many visitors
 * (a product refreshing its visitors' sessions, a client exchanging codes),
 * so they are not held to a visitor's per-address allowance; what is
 * bounded per address is what a guesser makes: calls not accepted.
 */
interface RefusedCallLimits {
  /** Calls made (counted as they pass) less calls accepted (counted as answered): the refused and those still in flight. */
  readonly unaccepted: number
  /** Every call, accepted or not: a ceiling on the load one address can put on the backend. */
  readonly all: number
}

export interface RefusedCallsOptions {
  /** Names the group's counts (`refresh`, `oidc-client`). */
  readonly group: string
  readonly counts: WindowCounts
  /** The key the counts name an address by (server/edge/http/rate-limit.ts rateLimitBucketName). */
  readonly addressKey: Buffer
  readonly limits: RefusedCallLimits
  /** Whether an answer's status is the backend accepting the call. */
  readonly accepted: (status: number) => boolean
}

/** The check before a call (answers 429 itself, true when it did) and the note of its answer. */
export interface RefusedCalls {
  readonly refuse: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>
  readonly noteAnswer: (request: FastifyRequest, status: number) => Promise<void>
}

/**
 * Counts per client address, in the window counts every instance shares
 * (server/edge/challenge/window-counts.ts): calls as they pass the check, and
 * calls the backend accepted as they are answered. Calls made and not
 * accepted include those in flight, so a burst of guesses sent at once is
 * held as soon as the first are counted, without waiting for their answers.
 */
export function refusedCalls (options: RefusedCallsOptions): RefusedCalls {
  const { counts, limits, group } = options
  const counted = new WeakSet<FastifyRequest>()
  const keysOf = (request: FastifyRequest) => {
    const bucket = rateLimitBucketName(options.addressKey, rateLimitKey(clientAddress(request)))
    return { made: `${group}-made:${bucket}`, accepted: `${group}-accepted:${bucket}` }
  }
  return {
    async refuse (request, reply) {
      const keys = keysOf(request)
      const [made = 0, accepted = 0] = await counts.sums([{ key: keys.made, windowMinutes: WINDOW_MINUTES }, { key: keys.accepted, windowMinutes: WINDOW_MINUTES }])
      if (made - accepted >= limits.unaccepted || made >= limits.all) {
        request.server.metrics?.rateLimited('accounts')
        await reply.code(429).header('retry-after', String(WINDOW_SECONDS))
          .send({ error: request.server.messagesFor(request).text('server.tooManyRequests', { seconds: WINDOW_SECONDS }) })
        return true
      }
      await counts.add([keys.made], WINDOW_MINUTES)
      counted.add(request)
      return false
    },
    async noteAnswer (request, status) {
      if (!counted.has(request) || !options.accepted(status)) return
      await counts.add([keysOf(request).accepted], WINDOW_MINUTES)
    }
  }
}
