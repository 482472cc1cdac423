import type { IncomingMessage, ServerResponse } from 'node:http'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { negotiateEncoding, type Encoding } from './static-files.js'

/**
 * Pages kept with their compressed variants, the least recently used dropped
 * beyond this many or {@link MAX_KEPT_PAGE_BYTES}: a real site sees a handful
 * of hosts, languages and views, and a stream of invented hosts or queries
 * only pushes out older entries, which the next visit builds again.
 */
export const MAX_KEPT_PAGES = 200

/**
 * The kept pages' bytes (their keys, the page and its two compressed
 * variants) stay under this: a page is about 28 KB with its variants (18 KB
 * with its CSS inline, 5 KB brotli, 6 KB gzip), so MAX_KEPT_PAGES of them fit,
 * but a long query ends every view link, so the count alone would not bound the memory.
 */
export const MAX_KEPT_PAGE_BYTES = 8 * 1024 * 1024

/**
 * A page longer than this is sent as it is and not kept: a real one is about 18 KB, and only a long
 * query (repeated in every view link) makes one longer, whose brotli at quality 11 would hold the event
 * loop for tens of milliseconds at a time.
 */
export const MAX_KEPT_BODY_BYTES = 32 * 1024

/**
 * Page bytes compressed for keeping, per second (a token bucket holding one
 * second's worth), about nine pages. Brotli at quality 11 costs about
 * 1 µs of the event loop per byte here (8 ms for the 7 KB login page before
 * its CSS was inline, 8–15 ms for the 18 KB one with it; gzip -9 adds
 * 0.3 ms), where a kept page costs nothing more to send, and
 * anyone can write a new query or Host: beyond the budget a page goes out
 * uncompressed and is not kept, so a flood of invented ones costs at most
 * ~20% of a core in compression. Uncompressed rather than a cheap gzip,
 * because a flood is when every request's cost counts (a gzip costs about
 * as much as building the page), and the page went out uncompressed before.
 */
export const KEPT_COMPRESSION_BYTES_PER_SECOND = 160 * 1024

/**
 * A body that is one visitor's (a form post's state, free text) is never
 * kept: it is gzipped for its one answer. gzip costs 8–11 µs per KB here at
 * any level (setting up the deflate state dominates at this size), brotli at
 * quality 4–5 14–16 µs per KB for 3–9% fewer bytes; level 4 keeps a larger
 * body's cost down too.
 */
const PER_REQUEST_GZIP_LEVEL = 4

/** One answer ready to write: its bytes and its complete header list (flat [name, value, …], for `writeHead`). */
export interface PageVariant {
  readonly body: Buffer
  readonly headers: readonly string[]
}

/** A page's answers by encoding; `identity` always. */
export type PageVariants = Readonly<Partial<Record<Encoding, PageVariant>>> & { readonly identity: PageVariant }

interface KeptPage {
  readonly variants: PageVariants
  readonly bytes: number
}

function variant (body: Buffer, headers: readonly string[], encoding: Encoding): PageVariant {
  const complete = headers.concat('content-length', String(body.length))
  if (encoding !== 'identity') complete.push('content-encoding', encoding)
  return { body, headers: complete }
}

/** The page as it is, uncompressed. */
export function identityVariant (body: Buffer, headers: readonly string[]): PageVariant {
  return variant(body, headers, 'identity')
}

/**
 * A body compressed for its one answer (never kept): gzip when the request
 * accepts it, else the body as it is. `headers` are the page's without
 * Content-Length and Content-Encoding.
 */
export function compressedForOneAnswer (acceptEncoding: string | undefined, body: Buffer, headers: readonly string[]): PageVariant {
  if (negotiateEncoding(acceptEncoding, { gzip: true }) !== 'gzip') return identityVariant(body, headers)
  return variant(gzipSync(body, { level: PER_REQUEST_GZIP_LEVEL }), headers, 'gzip')
}

/** The variant that suits a request's Accept-Encoding. */
export function variantFor (acceptEncoding: string | undefined, variants: PageVariants): PageVariant {
  return variants[negotiateEncoding(acceptEncoding, variants)] ?? variants.identity
}

/** Writes an answer; a HEAD gets the same headers (Content-Length included) and no body. */
export function sendPage (request: IncomingMessage, response: ServerResponse, status: number, answer: PageVariant): void {
  response.writeHead(status, answer.headers as string[])
  response.end(request.method === 'HEAD' ? undefined : answer.body)
}

export interface CompressedPagesOptions {
  /** Page bytes compressed for keeping per second (KEPT_COMPRESSION_BYTES_PER_SECOND). */
  readonly bytesPerSecond?: number
  /** The clock, in milliseconds (the tests' to turn). */
  readonly now?: () => number
}

/**
 * Pages that are the same for everyone who asks the same (no free text, no
 * form state: server/edge/page/page-markup.ts isShared), kept with their
 * brotli and gzip variants, compressed once each. The key names everything
 * the answer depends on; the caller builds it (server/edge/page/page-answer.ts).
 */
export class CompressedPages {
  private readonly kept = new Map<string, KeptPage>()
  private keptBytes = 0
  private readonly bytesPerSecond: number
  private readonly now: () => number
  private tokens: number
  private refilledAt: number

  constructor (options: CompressedPagesOptions = {}) {
    this.bytesPerSecond = options.bytesPerSecond ?? KEPT_COMPRESSION_BYTES_PER_SECOND
    this.now = options.now ?? Date.now
    this.tokens = this.bytesPerSecond
    this.refilledAt = this.now()
  }

  /** How many pages are kept (never more than MAX_KEPT_PAGES). */
  get size (): number {
    return this.kept.size
  }

  /** Their bytes, keys included (never more than MAX_KEPT_PAGE_BYTES). */
  get memoryBytes (): number {
    return this.keptBytes
  }

  /** The kept answers for `key`, if any. */
  get (key: string): PageVariants | undefined {
    const entry = this.kept.get(key)
    if (entry === undefined) return undefined
    // Map keeps insertion order: set again on each use, the first key is the least recently used.
    this.kept.delete(key)
    this.kept.set(key, entry)
    return entry.variants
  }

  /**
   * Compresses `body` (brotli at quality 11, gzip at level 9) and keeps the
   * answers under `key`; `headers` are the page's without Content-Length and
   * Content-Encoding. Null when the compression budget is spent: the caller
   * sends the body as it is, and nothing is kept.
   */
  keep (key: string, body: Buffer, headers: readonly string[]): PageVariants | null {
    if (body.length > MAX_KEPT_BODY_BYTES || !this.spend(body.length)) return null
    const brotli = brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length }
    })
    const gzip = gzipSync(body, { level: 9 })
    const variants: PageVariants = {
      identity: identityVariant(body, headers),
      // A variant that is not smaller is no use (a page never is: its text compresses to a third).
      ...(brotli.length < body.length ? { br: variant(brotli, headers, 'br') } : {}),
      ...(gzip.length < body.length ? { gzip: variant(gzip, headers, 'gzip') } : {})
    }
    const bytes = key.length + body.length + (variants.br?.body.length ?? 0) + (variants.gzip?.body.length ?? 0)
    if (bytes > MAX_KEPT_PAGE_BYTES) return variants
    const previous = this.kept.get(key)
    if (previous !== undefined) {
      this.kept.delete(key)
      this.keptBytes -= previous.bytes
    }
    while (this.kept.size >= MAX_KEPT_PAGES || this.keptBytes + bytes > MAX_KEPT_PAGE_BYTES) {
      const [oldestKey, oldest] = this.kept.entries().next().value!
      this.kept.delete(oldestKey)
      this.keptBytes -= oldest.bytes
    }
    this.kept.set(key, { variants, bytes })
    this.keptBytes += bytes
    return variants
  }

  private spend (bytes: number): boolean {
    const now = this.now()
    this.tokens = Math.min(this.bytesPerSecond, this.tokens + (now - this.refilledAt) * this.bytesPerSecond / 1000)
    this.refilledAt = now
    if (this.tokens < bytes) return false
    this.tokens -= bytes
    return true
  }
}
