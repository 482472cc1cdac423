import type { FastifyBaseLogger } from 'fastify'

/**
 * Whether what the instances share through Redis (rate-limit counts, the
 * challenge's risk counts, its used challenges) is shared right now, or each
 * instance keeps its own while Redis fails. Each change between the two is
 * logged once: an error when sharing stops, an info line when Redis answers
 * again; not a line per request during an outage.
 */
export interface RedisSharing {
  /** Redis answered: shared again, said once after an outage. */
  answered (): void
  /** Redis failed: each instance alone until it answers, said once. */
  failed (error: unknown): void
}

export function redisSharing (log: FastifyBaseLogger, lines: {
  /** The error line when sharing stops. */
  readonly lost: string
  /** The info line when Redis answers again. */
  readonly back: string
  /** Fields both lines carry. */
  readonly fields?: Readonly<Record<string, unknown>>
}): RedisSharing {
  let sharing = true
  return {
    answered () {
      if (sharing) return
      sharing = true
      log.info({ ...lines.fields }, lines.back)
    },
    failed (error) {
      if (!sharing) return
      sharing = false
      log.error({ err: error, ...lines.fields }, lines.lost)
    }
  }
}
