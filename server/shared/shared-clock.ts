/**
 * The time that instances sharing a server agree on: that server's own clock
 * (the accounts service's PostgreSQL, the edge's Redis). Lock ends,
 * throttles, link, token and challenge expiries are written by one instance
 * and compared by another; with each instance's own clock, one that runs
 * five minutes ahead refuses a right password that another locked for a
 * minute. Asking the server at every comparison would cost a round trip per
 * call, so the clock measures how far this process's clock is from the
 * server's, now and then, and adds that offset to `Date.now()`: the result
 * is the server's time to within half a round trip (a few milliseconds on a
 * local network; locks and expiries count in seconds).
 */

import type { FastifyBaseLogger } from 'fastify'

/** How often the offset is measured again: a clock stepped by NTP (or by hand) is followed within this. */
const CLOCK_SYNC_INTERVAL_MS = 60_000
/** Measurements per sync; the one with the shortest round trip is kept, as NTP does. */
const SAMPLES_PER_SYNC = 3

/** One measurement: the server's time against this process's clock just before and just after asking. */
interface Sample { readonly offsetMs: number, readonly roundTripMs: number }

export class SharedClock {
  private offset = 0
  private synced = false
  private timer: NodeJS.Timeout | null = null

  /**
   * `readServerTime`: the shared server's current time in epoch milliseconds
   * (PostgreSQL: `clock_timestamp()`, which moves during a transaction, not
   * `now()`, which does not; Redis: `TIME`). `onSynced` is told each offset
   * measured.
   */
  constructor (
    private readonly readServerTime: () => Promise<number>,
    private readonly onSynced: (offsetMs: number) => void = () => {}
  ) {}

  /** Epoch milliseconds by the shared server's clock (this process's own until the first measurement). */
  now (): number {
    return Date.now() + this.offset
  }

  /** How far the server's clock is ahead of this process's (negative: behind), as last measured. */
  get offsetMs (): number {
    return this.offset
  }

  /** Whether the offset was ever measured (until then the process's own clock is used). */
  get isSynced (): boolean {
    return this.synced
  }

  /**
   * Measures the offset now. A server that cannot be asked leaves the last
   * offset in use (the error is passed on); the next sync tries again.
   */
  async sync (): Promise<void> {
    const samples: Sample[] = []
    for (let index = 0; index < SAMPLES_PER_SYNC; index++) {
      const before = Date.now()
      const serverTime = await this.readServerTime()
      const after = Date.now()
      samples.push({ offsetMs: Math.round(serverTime - (before + after) / 2), roundTripMs: after - before })
    }
    const best = samples.reduce((kept, sample) => sample.roundTripMs < kept.roundTripMs ? sample : kept)
    this.offset = best.offsetMs
    this.synced = true
    this.onSynced(best.offsetMs)
  }

  /** Syncs every `intervalMs` until stopped; a failed sync is told to `onError`. */
  keepSynced (onError: (error: unknown) => void, intervalMs = CLOCK_SYNC_INTERVAL_MS): void {
    this.stop()
    this.timer = setInterval(() => { this.sync().catch(onError) }, intervalMs)
    this.timer.unref()
  }

  stop (): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }
}

/** Beyond this, an instance's own clock is worth an operator's look (what it shares follows the server's anyway). */
const CLOCK_OFFSET_WARNING_MS = 2000

/**
 * Says once, and again when it changes by CLOCK_OFFSET_WARNING_MS, that this
 * machine's clock is far from the shared server's (`server` names it):
 * harmless for what instances share, but the log's own times, and anything
 * outside (a product checking a token's expiry), follow the machine's.
 */
export function clockOffsetWarning (log: FastifyBaseLogger, server: string): (offsetMs: number) => void {
  let told: number | null = null
  return (offsetMs) => {
    if (Math.abs(offsetMs) < CLOCK_OFFSET_WARNING_MS) return
    if (told !== null && Math.abs(offsetMs - told) < CLOCK_OFFSET_WARNING_MS) return
    told = offsetMs
    log.warn({ offsetMs }, `this machine's clock differs from ${server}: what instances share follows that server's clock; set this machine's clock right (NTP)`)
  }
}
