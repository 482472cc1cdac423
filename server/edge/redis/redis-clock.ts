import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { clockOffsetWarning, SharedClock } from '../../shared/shared-clock.js'

/**
 * The clock the edge's instances share: Redis's (`TIME`), followed by
 * server/shared/shared-clock.ts and stopped with the edge. A Redis that
 * cannot be asked leaves the last offset in use (the process's own clock
 * until one is measured); redis-client.ts already logs the outage.
 */
export async function followRedisClock (redis: Redis, fastify: FastifyInstance): Promise<SharedClock> {
  const clock = new SharedClock(async () => {
    const [seconds, microseconds] = await redis.time()
    return Number(seconds) * 1000 + Number(microseconds) / 1000
  }, clockOffsetWarning(fastify.log, 'the Redis server\'s (REDIS_URL)'))
  fastify.addHook('onClose', async () => clock.stop())
  await clock.sync().catch(() => {})
  clock.keepSynced(() => {})
  return clock
}
