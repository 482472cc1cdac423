import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import type { AllowedHosts } from '../http/host-header.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'
import type { ChallengeSettings } from './challenge-config.js'
import { challengeGate, type ChallengeGate } from './challenge-gate.js'
import type { EdgeKeys } from '../keys/edge-secrets.js'
import { knownBrowsers } from '../known-browsers/known-browser.js'
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
  /** The edge's keys (server/edge/keys/edge-secrets.ts), from EDGE_SECRET. */
  readonly keys: EdgeKeys
  readonly redis: Redis | null
  readonly log: FastifyBaseLogger
  readonly prefix: string
  /** The hosts the edge serves (config.allowedHosts); a provider's token must have been solved on one. */
  readonly servedHosts: AllowedHosts
  readonly trust: ProxyTrust | null
  readonly now?: () => number
}): ChallengeGate | null {
  const { settings, keys, redis, log } = options
  if (settings.kind === 'off') return null
  const now = options.now ?? Date.now
  const local = localWindowCounts(now)
  const counts = redis === null ? local : sharedWindowCounts(redisWindowCounts(redis, now), local, log)
  const used = localSingleUse(now)
  return challengeGate({
    settings,
    keys,
    risk: createRisk(counts, settings, now),
    singleUse: redis === null ? used : sharedSingleUse(redis, used, log, now),
    knownBrowsers: knownBrowsers(keys.knownBrowserSignature, now),
    prefix: options.prefix,
    servedHosts: options.servedHosts,
    trust: options.trust,
    now
  })
}
