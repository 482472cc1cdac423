import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { redisSharing } from '../redis/redis-sharing.js'

/**
 * Counts in one-minute buckets: a count "over the last W minutes" is the sum
 * of the current bucket and the W - 1 before it, so it falls again bucket by
 * bucket as the minutes pass. Kept in Redis when it is shared (REDIS_URL),
 * so that every instance sees every failure, and in this process while Redis
 * fails, as the rate limits are (server/edge/http/rate-limit.ts): each change between the two
 * is logged once.
 */

export const BUCKET_MS = 60_000
const KEY_PREFIX = 'threshold-challenge-count:'

/** Where the counts are kept. */
export interface WindowCounts {
  /** Adds one to each of `keys` in the current bucket; the bucket is kept `windowMinutes`. */
  add (keys: readonly string[], windowMinutes: number): Promise<void>
  /** The sum over the last `windowMinutes` buckets of each key, in order. */
  sums (keys: readonly { readonly key: string, readonly windowMinutes: number }[]): Promise<number[]>
  /** Forgets `key` (a successful login clears its account). */
  clear (key: string, windowMinutes: number): Promise<void>
}

const bucketOf = (now: number): number => Math.floor(now / BUCKET_MS)

/** The process's own counts. Entries expire with their window; expired ones are swept as the map grows. */
export function localWindowCounts (now: () => number): WindowCounts {
  const counts = new Map<string, { count: number, expiresAt: number }>()
  let nextSweepAt = 10_000
  const sweep = (at: number): void => {
    if (counts.size < nextSweepAt) return
    for (const [key, entry] of counts) if (entry.expiresAt <= at) counts.delete(key)
    nextSweepAt = Math.max(10_000, counts.size * 2)
  }
  return {
    async add (keys, windowMinutes) {
      const at = now()
      sweep(at)
      const bucket = bucketOf(at)
      for (const key of keys) {
        const name = `${key}:${bucket}`
        const entry = counts.get(name)
        if (entry === undefined || entry.expiresAt <= at) counts.set(name, { count: 1, expiresAt: (bucket + windowMinutes) * BUCKET_MS })
        else entry.count++
      }
    },
    async sums (keys) {
      const at = now()
      const bucket = bucketOf(at)
      return keys.map(({ key, windowMinutes }) => {
        let sum = 0
        for (let back = 0; back < windowMinutes; back++) {
          const entry = counts.get(`${key}:${bucket - back}`)
          if (entry !== undefined && entry.expiresAt > at) sum += entry.count
        }
        return sum
      })
    },
    async clear (key, windowMinutes) {
      const bucket = bucketOf(now())
      for (let back = 0; back < windowMinutes; back++) counts.delete(`${key}:${bucket - back}`)
    }
  }
}

/** The counts in Redis: INCR and PEXPIREAT per bucket, one MGET per judgement. */
export function redisWindowCounts (redis: Redis, now: () => number): WindowCounts {
  return {
    async add (keys, windowMinutes) {
      const bucket = bucketOf(now())
      const pipeline = redis.multi()
      for (const key of keys) {
        const name = `${KEY_PREFIX}${key}:${bucket}`
        pipeline.incr(name).pexpireat(name, (bucket + windowMinutes) * BUCKET_MS)
      }
      const results = await pipeline.exec()
      const failed = results?.find(([error]) => error !== null)
      if (failed !== undefined) throw failed[0]!
    },
    async sums (keys) {
      const bucket = bucketOf(now())
      const names = keys.flatMap(({ key, windowMinutes }) => Array.from({ length: windowMinutes }, (_, back) => `${KEY_PREFIX}${key}:${bucket - back}`))
      if (names.length === 0) return []
      const values = await redis.mget(names)
      let at = 0
      return keys.map(({ windowMinutes }) => {
        let sum = 0
        for (let back = 0; back < windowMinutes; back++) sum += Number(values[at++] ?? 0) || 0
        return sum
      })
    },
    async clear (key, windowMinutes) {
      const bucket = bucketOf(now())
      await redis.del(Array.from({ length: windowMinutes }, (_, back) => `${KEY_PREFIX}${key}:${bucket - back}`))
    }
  }
}

/**
 * Redis's counts, and this process's while Redis fails. Why not fail open or
 * closed: as for the rate limits, a cache outage must neither let stuffing
 * through unjudged nor challenge every visitor. The local counts go on
 * during an outage (written as well as read), so the instance still judges
 * what it sees itself.
 */
export function sharedWindowCounts (shared: WindowCounts, local: WindowCounts, log: FastifyBaseLogger): WindowCounts {
  const sharing = redisSharing(log, {
    lost: 'challenge risk counts cannot be shared through Redis: each instance counts alone until Redis answers again',
    back: 'Redis answers again: challenge risk counts are shared between instances'
  })
  async function either<T> (run: (counts: WindowCounts) => Promise<T>): Promise<T> {
    try {
      const result = await run(shared)
      sharing.answered()
      return result
    } catch (error) {
      sharing.failed(error)
      return await run(local)
    }
  }
  return {
    add: async (keys, windowMinutes) => await either((counts) => counts.add(keys, windowMinutes)),
    sums: async (keys) => await either((counts) => counts.sums(keys)),
    clear: async (key, windowMinutes) => await either((counts) => counts.clear(key, windowMinutes))
  }
}
