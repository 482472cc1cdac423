import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'

/**
 * The check's one way to the backend: a JSON POST sent as the edge sends it
 * (no Accept-Encoding, never following a redirect), with a time limit on the
 * whole exchange and on the answer's size, read as an ordinary client would
 * (a gzip or brotli body is decoded, so the report can say what it held).
 */

/** The edge reads at most this much of an answer on a JSON call (server/edge/json-answers.ts). */
export const MAX_ANSWER_BYTES = 64 * 1024

/** Read past this, an answer is cut off: enough to tell "too large" without reading a hostile stream for ever. */
const READ_LIMIT_BYTES = MAX_ANSWER_BYTES + 1

export interface CallRequest {
  /** The path under the accounts URL, without a leading slash (`v2/login`). */
  readonly path: string
  readonly body: unknown
  /** A bearer credential (the Google ID token). */
  readonly bearer?: string
  readonly timeoutMs: number
}

/** What came back, at the HTTP level. */
export type Exchange =
  | {
    readonly kind: 'answer'
    readonly status: number
    readonly headers: IncomingHttpHeaders
    /** The body's bytes as text, decoded from gzip/br/deflate when the backend compressed it. */
    readonly text: string
    /** The Content-Encoding the backend used ('' for none). */
    readonly encoding: string
    /** Whether the body ran past MAX_ANSWER_BYTES (then `text` holds its start only). */
    readonly tooLarge: boolean
    readonly elapsedMs: number
  }
  | {
    readonly kind: 'no-answer'
    /** Why, in words an operator understands. */
    readonly reason: string
    readonly timedOut: boolean
    readonly elapsedMs: number
  }

/** An operator's words for a connection error's code. */
function connectionProblem (error: NodeJS.ErrnoException, url: URL): string {
  const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`
  switch (error.code) {
    case 'ECONNREFUSED': return `connection refused at ${where}: nothing listens there`
    case 'ENOTFOUND': case 'EAI_AGAIN': return `the host name ${url.hostname} does not resolve`
    case 'ECONNRESET': case 'EPIPE': return 'the backend closed the connection without answering'
    case 'EHOSTUNREACH': case 'ENETUNREACH': return `${where} cannot be reached from here`
    case 'HPE_INVALID_CONSTANT': case 'HPE_INVALID_STATUS': case 'HPE_INVALID_HEADER_TOKEN':
      return 'the answer is not HTTP'
    default:
      if (error.code?.startsWith('ERR_TLS') === true || /certificate|self.signed|SSL/i.test(error.message)) {
        return `TLS failed (${error.code ?? error.message}): the edge verifies certificates and would fail too`
      }
      return `the call failed: ${error.code ?? error.message}`
  }
}

/** A compressed answer is decoded to at most this much: 64 KiB of gzip can unpack to gigabytes. */
const MAX_DECODED_BYTES = 1024 * 1024

function decode (bytes: Buffer, encoding: string): string {
  const limit = { maxOutputLength: MAX_DECODED_BYTES }
  switch (encoding) {
    case '': case 'identity': return bytes.toString('utf8')
    case 'gzip': case 'x-gzip': return gunzipSync(bytes, limit).toString('utf8')
    case 'br': return brotliDecompressSync(bytes, limit).toString('utf8')
    case 'deflate': return inflateSync(bytes, limit).toString('utf8')
    default: throw new Error(`an unknown Content-Encoding "${encoding}"`)
  }
}

/** Posts `request.body` as JSON to `${accountsUrl}/${request.path}`; never throws, never waits past the time limit. */
export async function postJson (accountsUrl: URL, request: CallRequest): Promise<Exchange> {
  const url = new URL(request.path, accountsUrl.href.endsWith('/') ? accountsUrl : new URL(`${accountsUrl.href}/`))
  const payload = Buffer.from(JSON.stringify(request.body))
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(payload.length),
    accept: 'application/json',
    'user-agent': 'threshold-conformance'
  }
  if (request.bearer !== undefined) headers.authorization = `Bearer ${request.bearer}`
  const started = performance.now()
  const elapsed = (): number => Math.round(performance.now() - started)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest

  return await new Promise<Exchange>((resolve) => {
    let settled = false
    const finish = (exchange: Exchange): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outgoing.destroy()
      resolve(exchange)
    }
    // One limit for connecting, the headers and the body: a backend that trickles bytes is still cut off.
    const timer = setTimeout(() => finish({
      kind: 'no-answer',
      reason: `no complete answer within ${request.timeoutMs} ms: the backend hangs or is too slow (the edge gives up after UPSTREAM_TIMEOUT_MS)`,
      timedOut: true,
      elapsedMs: elapsed()
    }), request.timeoutMs)

    let outgoing: ReturnType<typeof send>
    try {
      outgoing = send(url, { method: 'POST', headers, agent: false }, onResponse)
    } catch (error) {
      // A header Node will not send (a --google-token with a line break in it).
      clearTimeout(timer)
      settled = true
      resolve({ kind: 'no-answer', reason: `the request could not be sent: ${(error as Error).message}`, timedOut: false, elapsedMs: elapsed() })
      return
    }
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      finish({ kind: 'no-answer', reason: connectionProblem(error, url), timedOut: false, elapsedMs: elapsed() }))
    outgoing.end(payload)

    function onResponse (response: IncomingMessage): void {
      const chunks: Buffer[] = []
      let length = 0
      let tooLarge = false
      response.on('data', (chunk: Buffer) => {
        if (tooLarge) return
        length += chunk.length
        chunks.push(chunk)
        if (length >= READ_LIMIT_BYTES) {
          tooLarge = true
          response.destroy()
          done()
        }
      })
      response.on('end', () => done())
      response.on('error', (error: NodeJS.ErrnoException) => {
        if (!tooLarge) finish({ kind: 'no-answer', reason: `the answer was cut off: ${connectionProblem(error, url)}`, timedOut: false, elapsedMs: elapsed() })
      })
      function done (): void {
        const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase()
        const bytes = Buffer.concat(chunks, length)
        let text: string
        try {
          text = tooLarge ? bytes.subarray(0, 200).toString('utf8') : decode(bytes, encoding)
        } catch (error) {
          // Only a compressed body fails to decode, and that answer fails its row anyway: the text says why.
          text = `<not decodable as ${encoding}: ${(error as Error).message}>`
        }
        finish({ kind: 'answer', status: response.statusCode ?? 0, headers: response.headers, text, encoding, tooLarge, elapsedMs: elapsed() })
      }
    }
  })
}
