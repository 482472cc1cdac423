/** How long after a form post's answer the same post from the same visitor gets that answer again. */
const REPEAT_WINDOW_MS = 10_000

/** The most posts remembered at once; past it a post runs unremembered (never refused). */
const REPEATS_REMEMBERED = 10_000

interface Remembered<T> {
  readonly answer: Promise<T>
  settledAt: number | null
}

/**
 * Runs one form post once: the same post (same visitor, same address and
 * body; the caller makes the key) while it runs or within
 * {@link REPEAT_WINDOW_MS} after gets the first one's answer instead of a
 * second call. Without scripts, two clicks on a button send two posts: a
 * second registration would answer "already exists", a second reset send a
 * second email. Per instance, in memory, bounded.
 */
export class RepeatedPosts<T> {
  private readonly remembered = new Map<string, Remembered<T>>()

  constructor (private readonly windowMs = REPEAT_WINDOW_MS, private readonly capacity = REPEATS_REMEMBERED) {}

  /** The answer of `run`, or of the same post's run still running or just ended; `repeated` says which. */
  async once (key: string, run: () => Promise<T>, now = Date.now()): Promise<{ readonly answer: T, readonly repeated: boolean }> {
    const earlier = this.remembered.get(key)
    if (earlier !== undefined && (earlier.settledAt === null || now - earlier.settledAt < this.windowMs)) {
      return { answer: await earlier.answer, repeated: true }
    }
    if (this.remembered.size >= this.capacity) this.forgetEnded(now)
    const answer = run()
    if (this.remembered.size < this.capacity) {
      const entry: Remembered<T> = { answer, settledAt: null }
      this.remembered.set(key, entry)
      const settle = (): void => { entry.settledAt = Date.now() }
      answer.then(settle, settle)
    }
    return { answer: await answer, repeated: false }
  }

  /** How many posts are remembered (for tests and the bound). */
  get size (): number {
    return this.remembered.size
  }

  private forgetEnded (now: number): void {
    for (const [key, entry] of this.remembered) {
      if (entry.settledAt !== null && now - entry.settledAt >= this.windowMs) this.remembered.delete(key)
    }
  }
}
