import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib'

/**
 * The edge asks its JSON backends for `identity`, but RFC 9110 lets a server
 * (or a gateway in front of it) pick a coding all the same, and
 * `Accept-Encoding: identity` is ignored by more than one. So the codings
 * browsers read are decoded here, as a stream: what is read from the backend
 * and what it decodes to are each bounded by the answer limit, and a body
 * that would inflate past it (a zip bomb) stops there, having held at most
 * the limit and one chunk in memory.
 */

/** Why an answer cannot be read although the backend was reached (logged, never shown). */
export class UnreadableAnswerError extends Error {
  readonly code = 'THRESHOLD_UNREADABLE_ANSWER'
  constructor (readonly reason: string) {
    super(reason)
    this.name = 'UnreadableAnswerError'
  }
}

/**
 * `deflate` is meant to be zlib-wrapped (RFC 9110, the "deflate" coding), but some servers
 * send raw DEFLATE under that name; browsers read both, and so does the edge,
 * choosing by the first byte as undici's fetch does.
 */
function createDeflateDecoder (): Transform {
  let inner: Transform | null = null
  return new Transform({
    transform (chunk: Buffer, _encoding, done: TransformCallback) {
      if (inner === null) {
        // A zlib header's first byte names the method, 8 (deflate), in its low nibble.
        inner = (chunk[0]! & 0x0f) === 0x08 ? createInflate() : createInflateRaw()
        // Paused while the reader is full, so that a bomb inflates no faster than it is read (and refused).
        inner.on('data', (decoded: Buffer) => { if (!this.push(decoded)) inner!.pause() })
        inner.on('error', (error) => this.destroy(error))
      }
      if (inner.write(chunk)) done()
      else inner.once('drain', () => done())
    },
    flush (done: TransformCallback) {
      if (inner === null) {
        done()
        return
      }
      inner.once('end', () => done())
      inner.end()
    },
    read (size: number) {
      inner?.resume()
      Transform.prototype._read.call(this, size)
    },
    // An answer refused at the limit stops the inner decoder too, instead of letting it inflate what it was given.
    destroy (error: Error | null, done: (error: Error | null) => void) {
      inner?.destroy()
      done(error)
    }
  })
}

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createDeflateDecoder,
  br: createBrotliDecompress
}

/** More codings than this on one answer is no backend's doing; such an answer is refused unread. */
const MAX_STACKED_CODINGS = 2

/**
 * The codings of a `Content-Encoding` header in the order they were applied,
 * `identity` left out; an {@link UnreadableAnswerError} when one is unknown
 * (zstd and compress included) or when too many are stacked.
 */
export function contentCodings (header: string | readonly string[] | undefined): string[] {
  const raw = typeof header === 'string' ? header : (header ?? []).join(',')
  const codings = raw.split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '' && coding !== 'identity')
  const unknown = codings.find((coding) => !Object.hasOwn(DECODERS, coding))
  if (unknown !== undefined) throw new UnreadableAnswerError('unknown content encoding')
  if (codings.length > MAX_STACKED_CODINGS) throw new UnreadableAnswerError('too many content encodings')
  return codings
}

/** Passes chunks on while their total stays within `limit` bytes. */
class ByteLimit extends Transform {
  #length = 0
  constructor (readonly limit: number) {
    super()
  }

  override _transform (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#length += chunk.length
    if (this.#length > this.limit) done(new UnreadableAnswerError('larger than the limit'))
    else done(null, chunk)
  }
}

/**
 * The whole body of `stream`, decoded from `codings` (as {@link contentCodings}
 * lists them), when neither the bytes read nor the bytes decoded exceed
 * `limit`. Rejects with an {@link UnreadableAnswerError} for a body over the
 * limit or one that does not decode (corrupt, cut short); with the stream's
 * own error when the backend's connection fails or stalls.
 */
export async function readDecodedBody (stream: Readable, codings: readonly string[], limit: number): Promise<Buffer> {
  // Decoding undoes the codings in the reverse of the order they were applied.
  const decoders = [...codings].reverse().map((coding) => DECODERS[coding]!())
  const decoderErrors = new Set<unknown>()
  for (const decoder of decoders) decoder.on('error', (error) => decoderErrors.add(error))

  let failure: unknown = null
  const decoded = new ByteLimit(limit)
  // Uncoded (what the edge asks for), the bytes read are the bytes decoded: one limit counts them.
  const stages = decoders.length === 0 ? [stream, decoded] : [stream, new ByteLimit(limit), ...decoders, decoded]
  pipeline(stages, (error) => { failure ??= error })
  const chunks: Buffer[] = []
  try {
    for await (const chunk of decoded) chunks.push(chunk as Buffer)
  } catch (error) {
    const cause = failure ?? error
    if (cause instanceof UnreadableAnswerError) throw cause
    if (decoderErrors.has(cause)) throw new UnreadableAnswerError('undecodable content encoding')
    throw cause
  }
  return Buffer.concat(chunks)
}
