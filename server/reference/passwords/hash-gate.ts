import { availableParallelism } from 'node:os'

/**
 * Password hashing is the service's costly work (scrypt at N = 2^17: 128 MiB
 * and a few hundred milliseconds of a core each), and without a bound a burst
 * of logins queues more of it than the machine can do before the edge gives
 * up: every answer then times out, and the hashing for
 * answers nobody waits for any more goes on after the burst. The gate in
 * front of every hash and check:
 *
 * - runs at most `concurrency` at a time (the cores, at most the threads of
 *   libuv's pool, where Node's scrypt runs);
 * - always queues the next turn of each running slot (the first
 *   `concurrency` in the queue), however long a hash takes: that work is
 *   what the slots finish next, and refusing it would leave them idle. On a
 *   starved machine where one hash outlasts `maxWaitMs`, a gate that judged
 *   these by the wait refused every attempt past the running ones, and
 *   answered fewer logins than it could have;
 * - queues at most `maxQueue` in all, and refuses at once (503 with
 *   Retry-After) any other attempt that could not start within `maxWaitMs`,
 *   judged from how long recent hashes took; one of these that waits that
 *   long all the same is refused then, unless it has meanwhile become a
 *   slot's next turn;
 * - drops queued work whose client has gone (the request's signal: the
 *   visitor left, or the edge gave up after its UPSTREAM_TIMEOUT_MS and
 *   closed the connection), so that no hash is made for an answer nobody
 *   waits for;
 * - with `answerWithinMs` (the edge's UPSTREAM_TIMEOUT_MS), queues nothing,
 *   and starts no queued hash, whose answer would come after the edge has
 *   given up, judged from how long recent hashes took: such a hash would
 *   only keep its slot from a login that can still be answered, and its
 *   visitor is better told at once to try again (503) than to wait for a
 *   504. A slot's next turn is what the slot can finish in that time.
 */

/** The longest a hash behind the slots' next turns waits for its own before the request is refused. */
const DEFAULT_MAX_WAIT_MS = 2000
/**
 * Queued hashes per concurrent one, at most: a safety net. The wait is the
 * bound that matters (at OWASP's cost it admits about 4 per worker); this one
 * only holds where hashes are cheap.
 */
const QUEUE_PER_WORKER = 64
/** What a hash is assumed to take until one has been measured (the service measures one as it starts: its decoy hash). */
const FIRST_ESTIMATE_MS = 500
/** The weight of the newest hash in the running estimate of a hash's duration. */
const ESTIMATE_WEIGHT = 0.2

/** libuv's thread pool size (UV_THREADPOOL_SIZE, 4 unless set), where crypto.scrypt runs. */
export function threadPoolSize (env: NodeJS.ProcessEnv = process.env): number {
  const size = Number(env.UV_THREADPOOL_SIZE)
  return Number.isInteger(size) && size > 0 ? Math.min(size, 1024) : 4
}

export interface HashGateOptions {
  readonly concurrency: number
  readonly maxQueue: number
  readonly maxWaitMs: number
  /** How long the caller waits for an answer (the edge's UPSTREAM_TIMEOUT_MS); no bound when absent. */
  readonly answerWithinMs?: number
}

/** The gate's sizes for this machine: one hash per core, within libuv's pool. */
export function defaultHashGateOptions (): HashGateOptions {
  const concurrency = Math.max(1, Math.min(availableParallelism(), threadPoolSize()))
  return { concurrency, maxQueue: concurrency * QUEUE_PER_WORKER, maxWaitMs: DEFAULT_MAX_WAIT_MS }
}

/**
 * Hashing was refused: `busy` (the service answers 503 with Retry-After) or
 * `client-gone` (nobody is waiting for the answer).
 */
export class PasswordWorkRefused extends Error {
  readonly code = 'PASSWORD_WORK_REFUSED'
  constructor (readonly reason: 'busy' | 'client-gone', readonly retryAfterSeconds: number = 1) {
    super(reason === 'busy' ? 'too many password checks are waiting' : 'the client went away before its password was checked')
  }
}

interface Waiter {
  /** When it came to the gate (performance.now()). */
  readonly enteredAt: number
  readonly start: () => void
  readonly refuse: (refusal: PasswordWorkRefused) => void
}

export class HashGate {
  private running = 0
  private readonly queue: Waiter[] = []
  private estimateMs = FIRST_ESTIMATE_MS
  private measured = false

  /** `onBusy` hears of each refusal for lack of room (the metrics count load shedding); not of clients gone. */
  constructor (readonly options: HashGateOptions, private readonly onBusy: () => void = () => {}) {}

  /** Hashes running and waiting now. */
  get load (): { readonly running: number, readonly queued: number } {
    return { running: this.running, queued: this.queue.length }
  }

  /** How long a hash queued now would wait for its turn, from the recent hashes' durations. */
  private expectedWaitMs (position: number): number {
    return Math.ceil(position / this.options.concurrency) * this.estimateMs
  }

  private busy (): PasswordWorkRefused {
    this.onBusy()
    const drainMs = this.expectedWaitMs(this.queue.length + 1)
    return new PasswordWorkRefused('busy', Math.max(1, Math.ceil(drainMs / 1000)))
  }

  /** Runs `work` (one hash or check) when its turn comes; refuses as the gate's rules say. */
  async run<T> (work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted === true) throw new PasswordWorkRefused('client-gone')
    if (this.running < this.options.concurrency) this.running++
    else await this.wait(signal)
    const started = performance.now()
    try {
      return await work()
    } finally {
      const tookMs = performance.now() - started
      this.estimateMs = this.measured ? this.estimateMs + ESTIMATE_WEIGHT * (tookMs - this.estimateMs) : tookMs
      this.measured = true
      this.release()
    }
  }

  /** Whether the work at `position` in the queue (from 1) is a running slot's next turn: never refused for a slow hash. */
  private isNextTurn (position: number): boolean {
    return position <= this.options.concurrency
  }

  /** Whether a hash that has waited `waitedMs` and will wait `aheadMs` more would be answered before the caller gives up. */
  private answeredInTime (waitedMs: number, aheadMs: number): boolean {
    const within = this.options.answerWithinMs
    return within === undefined || waitedMs + aheadMs + this.estimateMs <= within
  }

  private wait (signal: AbortSignal | undefined): Promise<void> {
    const position = this.queue.length + 1
    const aheadMs = this.expectedWaitMs(position)
    if (position > this.options.maxQueue || !this.answeredInTime(0, aheadMs) ||
      (!this.isNextTurn(position) && aheadMs > this.options.maxWaitMs)) {
      return Promise.reject(this.busy())
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        const index = this.queue.indexOf(waiter)
        if (index !== -1) this.queue.splice(index, 1)
      }
      const waiter: Waiter = {
        enteredAt: performance.now(),
        start: () => { leave(); resolve() },
        refuse: (refusal) => { leave(); reject(refusal) }
      }
      const onAbort = (): void => waiter.refuse(new PasswordWorkRefused('client-gone'))
      // A slot's next turn stays (those ahead of it have gone meanwhile); the excess behind it is shed.
      const timer = setTimeout(() => {
        if (!this.isNextTurn(this.queue.indexOf(waiter) + 1)) waiter.refuse(this.busy())
      }, this.options.maxWaitMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.queue.push(waiter)
    })
  }

  /**
   * A finished hash hands its turn to the first in the queue that can still be answered in time
   * (those that cannot are refused), or frees it.
   */
  private release (): void {
    for (let next = this.queue[0]; next !== undefined; next = this.queue[0]) {
      if (this.answeredInTime(performance.now() - next.enteredAt, 0)) {
        next.start()
        return
      }
      // Leaves the queue as it is refused.
      next.refuse(this.busy())
    }
    this.running--
  }
}
