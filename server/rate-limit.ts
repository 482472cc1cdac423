import type { RateLimitPluginOptions } from '@fastify/rate-limit'

/** How many proxied POSTs a client address may make, and where counts are kept. */
export interface RateLimitSettings {
  readonly perMinute: number
}

const ONE_MINUTE_MS = 60_000

/**
 * @fastify/rate-limit options for one group of proxied routes. Counting is per
 * client address as Fastify sees it (so TRUST_PROXY decides), with an IPv6
 * client counted by its /64, since one subscriber usually holds a whole /64.
 */
export function rateLimitOptions (settings: RateLimitSettings, group: string): RateLimitPluginOptions {
  return {
    global: true,
    max: settings.perMinute,
    timeWindow: ONE_MINUTE_MS,
    ipv6Subnet: 64,
    nameSpace: `threshold-rate-limit-${group}-`,
    errorResponseBuilder: (_request, context) => Object.assign(
      new Error(`Too many requests. Please wait ${Math.max(1, Math.ceil(context.ttl / 1000))} seconds and try again.`),
      { statusCode: 429 }
    )
  }
}
