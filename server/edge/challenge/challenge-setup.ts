import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import type { ChallengeSettings } from './challenge-config.js'
import { challengeGate, type ChallengeGate } from './challenge-gate.js'
import { edgeKeys } from './edge-secrets.js'
import { createRisk } from './risk.js'
import { localSingleUse, sharedSingleUse } from './single-use.js'
import { localWindowCounts, redisWindowCounts, sharedWindowCounts } from './window-counts.js'

/**
 * The challenge gate for the accounts proxy mounted at `prefix`, its counts
 * and used challenges in Redis when the edge shares its limits, in this
 * process otherwise; null with CHALLENGE=off.
 */
export function createChallengeGate (options: {
  readonly settings: ChallengeSettings
  readonly redis: Redis | null
  readonly log: FastifyBaseLogger
  readonly prefix: string
  readonly now?: () => number
}): ChallengeGate | null {
  const { settings, redis, log } = options
  if (settings.kind === 'off') return null
  const now = options.now ?? Date.now
  if (redis !== null && settings.edgeSecret === null) {
    log.warn('REDIS_URL is set but EDGE_SECRET is not: each instance signs its own challenges and names accounts in the shared counts its own way; set the same EDGE_SECRET on every instance (docs/challenge.md)')
  }
  const local = localWindowCounts(now)
  const counts = redis === null ? local : sharedWindowCounts(redisWindowCounts(redis, now), local, log)
  const used = localSingleUse(now)
  return challengeGate({
    settings,
    keys: edgeKeys(settings.edgeSecret),
    risk: createRisk(counts, settings, now),
    singleUse: redis === null ? used : sharedSingleUse(redis, used, log, now),
    prefix: options.prefix,
    now
  })
}
