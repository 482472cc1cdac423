import { RangeAnswer, rangeKey } from './range-answer.js'

/** A range answer is kept this long: a burst of logins with one password makes one range call. */
export const RANGE_CACHE_TTL_MS = 5 * 60 * 1000
/**
 * At most this many range answers are kept (the least recently used go
 * first): about 40 KB each, so some 20 MB at the very most.
 */
const RANGE_CACHE_MAX_PREFIXES = 500
/**
 * A real answer, padded, is 30 to 45 KB; anything much larger is not a range
 * answer and is not read to its end.
 */
export const RANGE_ANSWER_MAX_BYTES = 256 * 1024
/**
 * After a failed range call, lookups answer `unavailable` at once for this
 * long instead of each waiting out the timeout again: a corpus that is down
 * costs one visitor in this span the wait, not every one of them.
 */
export const RANGE_FAILURE_PAUSE_MS = 5000

/** Why the corpus could not say: the range call's failure, or `paused` after one. */
export type RangeFailure = 'timeout' | 'unreachable' | 'bad_status' | 'malformed' | 'too_large'
export const RANGE_FAILURES: readonly RangeFailure[] = ['timeout', 'unreachable', 'bad_status', 'malformed', 'too_large']

export type RangeLookup =
  | { readonly outcome: 'breached', readonly count: number }
  | { readonly outcome: 'clean' }
  | { readonly outcome: 'unavailable', readonly reason: RangeFailure | 'paused' }

export interface RangeClientOptions {
  /** The range API's base, without a trailing slash. */
  readonly rangeUrl: string
  readonly timeoutMs: number
  /** Called once per range call made (cache hits and coalesced lookups make none): `ok` or why it failed. */
  readonly onRangeCall: (result: 'ok' | RangeFailure) => void
  readonly now?: () => number
}

class RangeCallFailed extends Error {
  constructor (readonly reason: RangeFailure) {
    super(`range call failed: ${reason}`)
  }
}

async function readLimited (response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > limit) {
    await response.body?.cancel()
    throw new RangeCallFailed('too_large')
  }
  if (response.body === null) return ''
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return Buffer.concat(chunks).toString('utf8')
    size += value.byteLength
    if (size > limit) {
      // Not read to its end: cancelling closes the connection.
      await reader.cancel()
      throw new RangeCallFailed('too_large')
    }
    chunks.push(value)
  }
}

/**
 * Asks a Pwned Passwords range API (the public one or a mirror) whether a
 * password is in the breach corpus: only the hash's first five hex digits
 * leave the service, with `Add-Padding: true` so that the answer's size does
 * not tell which prefix was asked. Answers are cached by prefix, identical
 * lookups in flight share one call, and any answer that is not a well-formed
 * range within the timeout is `unavailable`, never `clean`.
 */
export class RangeClient {
  private readonly cache = new Map<string, { readonly answer: RangeAnswer, readonly expiresAt: number }>()
  private readonly inFlight = new Map<string, Promise<RangeAnswer>>()
  private pausedUntil = 0
  private readonly now: () => number

  constructor (private readonly options: RangeClientOptions) {
    this.now = options.now ?? Date.now
  }

  /** The password's standing in the corpus; `cached` when no range call was needed. */
  async lookup (password: string): Promise<RangeLookup & { readonly cached: boolean }> {
    const { prefix, suffix } = rangeKey(password)
    const cached = this.cachedAnswer(prefix)
    if (cached !== null) return { ...verdict(cached, suffix), cached: true }
    if (this.now() < this.pausedUntil && !this.inFlight.has(prefix)) return { outcome: 'unavailable', reason: 'paused', cached: false }
    try {
      return { ...verdict(await this.fetchRange(prefix), suffix), cached: false }
    } catch (error) {
      if (error instanceof RangeCallFailed) return { outcome: 'unavailable', reason: error.reason, cached: false }
      throw error
    }
  }

  private cachedAnswer (prefix: string): RangeAnswer | null {
    const entry = this.cache.get(prefix)
    if (entry === undefined) return null
    this.cache.delete(prefix)
    if (entry.expiresAt <= this.now()) return null
    // Set again: the Map's order is its least-recently-used order.
    this.cache.set(prefix, entry)
    return entry.answer
  }

  private fetchRange (prefix: string): Promise<RangeAnswer> {
    const pending = this.inFlight.get(prefix)
    if (pending !== undefined) return pending
    const call = this.callRange(prefix).finally(() => this.inFlight.delete(prefix))
    this.inFlight.set(prefix, call)
    return call
  }

  private async callRange (prefix: string): Promise<RangeAnswer> {
    try {
      const answer = await this.request(prefix)
      this.options.onRangeCall('ok')
      this.cache.set(prefix, { answer, expiresAt: this.now() + RANGE_CACHE_TTL_MS })
      while (this.cache.size > RANGE_CACHE_MAX_PREFIXES) this.cache.delete(this.cache.keys().next().value!)
      return answer
    } catch (error) {
      const failure = error instanceof RangeCallFailed ? error : new RangeCallFailed(timedOut(error) ? 'timeout' : 'unreachable')
      this.options.onRangeCall(failure.reason)
      this.pausedUntil = this.now() + RANGE_FAILURE_PAUSE_MS
      throw failure
    }
  }

  private async request (prefix: string): Promise<RangeAnswer> {
    // One signal for the headers and the body: a server that trickles its answer times out too.
    const signal = AbortSignal.timeout(this.options.timeoutMs)
    const response = await fetch(`${this.options.rangeUrl}/${prefix}`, {
      headers: { 'add-padding': 'true', accept: 'text/plain', 'user-agent': 'Threshold-accounts' },
      // A mirror that redirects is misconfigured; following it would send the prefix somewhere unnamed.
      redirect: 'error',
      signal
    })
    if (response.status !== 200) {
      await response.body?.cancel()
      throw new RangeCallFailed('bad_status')
    }
    const answer = RangeAnswer.parse(await readLimited(response, RANGE_ANSWER_MAX_BYTES))
    if (answer === null) throw new RangeCallFailed('malformed')
    return answer
  }
}

function timedOut (error: unknown): boolean {
  const name = typeof error === 'object' && error !== null && 'name' in error ? error.name : null
  return name === 'TimeoutError' || name === 'AbortError'
}

function verdict (answer: RangeAnswer, suffix: string): RangeLookup {
  const count = answer.count(suffix)
  return count > 0 ? { outcome: 'breached', count } : { outcome: 'clean' }
}
