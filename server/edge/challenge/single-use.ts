import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { redisSharing } from '../redis/redis-sharing.js'

/** Records solved challenges until they expire, so that each is accepted once. */
export interface SingleUse {
  /** True the first time `id` is claimed before `expiresAt` (ms), false after. */
  claim (id: string, expiresAt: number): Promise<boolean>
}

const KEY_PREFIX = 'threshold-challenge-used:'

/**
 * In this process: a challenge used here cannot be used here again, but
 * another instance without Redis would accept it once more (the caveat of
 * running several instances without REDIS_URL; docs/challenge.md).
 */
export function localSingleUse (now: () => number): SingleUse {
  const used = new Map<string, number>()
  let nextSweepAt = 10_000
  return {
    async claim (id, expiresAt) {
      const at = now()
      if (used.size >= nextSweepAt) {
        for (const [key, until] of used) if (until <= at) used.delete(key)
        nextSweepAt = Math.max(10_000, used.size * 2)
      }
      const until = used.get(id)
      if (until !== undefined && until > at) return false
      used.set(id, expiresAt)
      return true
    }
  }
}

/**
 * In Redis (`SET NX PX` until the challenge expires), so that no instance
 * accepts a challenge another has accepted; in this process while Redis
 * fails (logged once per change), rather than refusing every solution.
 */
export function sharedSingleUse (redis: Redis, local: SingleUse, log: FastifyBaseLogger, now: () => number): SingleUse {
  const sharing = redisSharing(log, {
    lost: 'solved challenges cannot be recorded in Redis: each instance records its own until Redis answers again',
    back: 'Redis answers again: solved challenges are recorded for every instance'
  })
  return {
    async claim (id, expiresAt) {
      const ttl = Math.max(1, expiresAt - now())
      try {
        const set = await redis.set(`${KEY_PREFIX}${id}`, '1', 'PX', ttl, 'NX')
        sharing.answered()
        // Also recorded here: should Redis fail later, this instance still knows it.
        await local.claim(id, expiresAt)
        return set === 'OK'
      } catch (error) {
        sharing.failed(error)
        return await local.claim(id, expiresAt)
      }
    }
  }
}
