import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'

/**
 * A rate-limit check sits in front of every login: past this, Redis counts as
 * failed for that request (and the request is counted by the instance alone).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 500
/** How long the edge waits for Redis at start before it serves without it. */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000
/** Reconnection attempts back off up to this delay, and go on until the edge stops. */
export const REDIS_RECONNECT_MAX_DELAY_MS = 2_000

/** The edge's one Redis connection, shared by every rate-limit group. */
export interface RedisConnection {
  readonly client: Redis
  /** Waits for the first connection, at most REDIS_CONNECT_TIMEOUT_MS; never throws. */
  connect (): Promise<void>
  /** Drops the connection and stops reconnecting, at once. */
  close (): void
}

/**
 * Connects to REDIS_URL in a way that can neither hang nor crash the edge:
 * - commands are never queued while disconnected, nor retried after a
 *   disconnection (`enableOfflineQueue: false`, `maxRetriesPerRequest: 0`):
 *   they fail at once and the caller counts locally instead;
 * - a Redis that stops answering is given up after REDIS_COMMAND_TIMEOUT_MS
 *   (`commandTimeout`), and its socket dropped (`socketTimeout`), which
 *   starts a reconnection;
 * - connection errors go to the log, once per outage rather than once per
 *   reconnection attempt, and are never left unhandled.
 * The URL (which may hold a password) is never logged.
 */
export function createRedisConnection (url: string, log: FastifyBaseLogger): RedisConnection {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    socketTimeout: REDIS_COMMAND_TIMEOUT_MS * 2,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_RECONNECT_MAX_DELAY_MS)
  })

  let reachable: boolean | null = null
  let closing = false
  client.on('ready', () => {
    if (reachable !== true) log.info('connected to Redis: rate limits are shared between instances')
    reachable = true
  })
  // A lost connection shows as 'close' (Redis may be back before a reconnection
  // fails), a failed one as 'error'.
  client.on('close', () => {
    if (reachable !== true || closing) return
    reachable = false
    log.error('the connection to Redis was lost: each instance counts rate limits alone until it is back')
  })
  client.on('error', (error: Error) => {
    if (reachable === false) return
    reachable = false
    log.error({ err: error }, 'Redis is unreachable: each instance counts rate limits alone until it is back')
  })

  return {
    client,
    async connect () {
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<void>((resolve) => { timer = setTimeout(resolve, REDIS_CONNECT_TIMEOUT_MS) })
      // A failed first attempt is logged by the error listener; ioredis keeps
      // reconnecting in the background.
      await Promise.race([client.connect().catch(() => {}), timedOut])
      clearTimeout(timer)
    },
    close () {
      closing = true
      client.disconnect(false)
    }
  }
}
