import type {
  FastifyRateLimitStore,
  FastifyRateLimitStoreCtor,
  RateLimitPluginOptions
} from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import { createHmac } from 'node:crypto'
import { clientAddress, rateLimitKey } from './client-address.js'
import { redisSharing, type RedisSharing } from '../redis/redis-sharing.js'

/** Where the counts of every instance behind the load balancer meet. */
interface SharedCounting {
  readonly redis: Redis
  readonly log: FastifyBaseLogger
}

/** How many proxied POSTs a client address may make, and where counts are kept. */
export interface RateLimitSettings {
  readonly perMinute: number
  /**
   * The key that names a client address in the counts (server/edge/keys/edge-secrets.ts
   * rateLimitPseudonym, from EDGE_SECRET): every instance sharing counts
   * must hold the same.
   */
  readonly addressKey: Buffer
  /** Counts shared through Redis (REDIS_URL); null: this instance counts alone. */
  readonly shared: SharedCounting | null
}

const ONE_MINUTE_MS = 60_000

type StoreRouteOptions = Parameters<FastifyRateLimitStore['child']>[0]

/**
 * Counts in Redis, where every instance sees every request, and in this
 * process only while Redis fails (down, unreachable, too slow, full).
 *
 * Why neither of the library's `skipOnError` choices: failing closed turns a
 * cache outage into a sign-in outage (every login refused), and failing open
 * leaves the login endpoints without any limit for as long as the outage lasts.
 * Counting per instance keeps a limit (RATE_LIMIT_PER_MINUTE per instance, so
 * at most N times it behind N instances) and keeps sign-in working. Each
 * change between the two is logged once: an error when counting stops being
 * shared, an info line when it is shared again.
 */
class SharedCountsWithLocalFallback implements FastifyRateLimitStore {
  private readonly sharing: RedisSharing

  constructor (
    private readonly shared: FastifyRateLimitStore,
    private readonly local: FastifyRateLimitStore,
    private readonly log: FastifyBaseLogger,
    private readonly group: string
  ) {
    this.sharing = redisSharing(log, {
      lost: 'rate limits cannot be shared through Redis: each instance counts alone until Redis answers again',
      back: 'Redis answers again: rate limits are shared between instances',
      fields: { rateLimitGroup: group }
    })
  }

  incr (key: string, callback: Parameters<FastifyRateLimitStore['incr']>[1], timeWindow: number, max: number): void {
    this.shared.incr(key, (error, result) => {
      if (!error) {
        this.sharing.answered()
        callback(null, result)
        return
      }
      this.sharing.failed(error)
      this.local.incr(key, callback, timeWindow, max)
    }, timeWindow, max)
  }

  child (routeOptions: StoreRouteOptions): FastifyRateLimitStore {
    return new SharedCountsWithLocalFallback(this.shared.child(routeOptions), this.local.child(routeOptions), this.log, this.group)
  }
}

function sharedStore (shared: SharedCounting, nameSpace: string, group: string): FastifyRateLimitStoreCtor {
  // The plugin constructs its store itself.
  return class extends SharedCountsWithLocalFallback {
    constructor () {
      super(new RedisStore(false, false, shared.redis, nameSpace), new LocalStore(false, false), shared.log, group)
    }
  }
}

/**
 * A client's bucket (client-address.ts rateLimitKey) as the counts name it:
 * an HMAC under `key`, as the challenge names ranges (server/edge/challenge/risk.ts
 * rangeKeyFor). Nothing in the counts, in Redis, names a client: an IPv4
 * address hashed without a key would be found again by hashing all 2^32.
 */
export function rateLimitBucketName (key: Buffer, bucket: string): string {
  return createHmac('sha256', key).update(`rate-limit:${bucket}`).digest('base64url').slice(0, 22)
}

/**
 * @fastify/rate-limit options for one group of proxied routes. Counting is per
 * client address as Fastify sees it (so TRUST_PROXY decides), normalised
 * first (client-address.ts): without a port, an IPv6 client by its /64, and
 * requests without an address in one bucket (the library's own key generator
 * throws on those, and the request then escapes the count), each bucket by
 * its keyed hash. Each group has its own counts (its own Redis key prefix
 * when shared).
 */
export function rateLimitOptions (settings: RateLimitSettings, group: string, exempt?: (request: FastifyRequest) => boolean): RateLimitPluginOptions {
  const nameSpace = `threshold-rate-limit-${group}-`
  return {
    global: true,
    // Calls limited in another way (server/edge/sessions/refresh-limit.ts), not by this allowance.
    ...(exempt === undefined ? {} : { allowList: (request: FastifyRequest) => exempt(request) }),
    max: settings.perMinute,
    timeWindow: ONE_MINUTE_MS,
    keyGenerator: (request) => rateLimitBucketName(settings.addressKey, rateLimitKey(clientAddress(request))),
    nameSpace,
    // Counted only while metrics are kept; the label is the limit's group (accounts, or the domain check's edge-auth).
    onExceeded: (request) => request.server.metrics?.rateLimited(group === 'accounts' ? 'accounts' : 'domain_check'),
    ...(settings.shared === null ? {} : { store: sharedStore(settings.shared, nameSpace, group) }),
    errorResponseBuilder: (_request, context) => Object.assign(
      new Error(`Too many requests. Please wait ${Math.max(1, Math.ceil(context.ttl / 1000))} seconds and try again.`),
      { statusCode: 429 }
    )
  }
}
