import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { DEFAULT_ACCOUNTS_ANSWER_LIMIT_BYTES } from '../server/shared/accounts-answer-limit.js'
import { contentCodings, readDecodedBody, UnreadableAnswerError } from '../server/shared/content-codings.js'

/**
 * The check's one way to the backend: a JSON POST sent as the edge sends it
 * (`Accept-Encoding: identity`, never following a redirect), with a time
 * limit on the whole exchange, and the answer read as the edge reads it: by
 * the edge's own decoder (server/shared/content-codings.ts), so a coding the
 * edge decodes passes here too and one it cannot read fails here too, within
 * the edge's default answer limit, as sent and as decoded.
 */

/** The edge reads at most this much of an answer on a JSON call, unless ACCOUNTS_ANSWER_LIMIT_BYTES says otherwise. */
export const MAX_ANSWER_BYTES = DEFAULT_ACCOUNTS_ANSWER_LIMIT_BYTES

export interface CallRequest {
  /** The path under the accounts URL, without a leading slash (`v2/login`). */
  readonly path: string
  readonly body: unknown
  /** A bearer credential (the Google ID token). */
  readonly bearer?: string
  /** A Cookie header, as the edge passes the browser's on (the emailed code's binding). */
  readonly cookie?: string
  readonly timeoutMs: number
}

/** What came back, at the HTTP level. */
export type Exchange =
  | {
    readonly kind: 'answer'
    readonly status: number
    readonly headers: IncomingHttpHeaders
    /** The body as text, decoded as the edge decodes it; '' when it could not be read. */
    readonly text: string
    /** The Content-Encoding the backend used ('' for none). */
    readonly encoding: string
    /** Why the edge could not read the body (over the limit, an unknown or broken coding); null when it could. */
    readonly unreadable: string | null
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

/** Posts `request.body` as JSON to `${accountsUrl}/${request.path}`; never throws, never waits past the time limit. */
export async function postJson (accountsUrl: URL, request: CallRequest): Promise<Exchange> {
  const url = new URL(request.path, accountsUrl.href.endsWith('/') ? accountsUrl : new URL(`${accountsUrl.href}/`))
  const payload = Buffer.from(JSON.stringify(request.body))
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(payload.length),
    accept: 'application/json',
    'accept-encoding': 'identity',
    'user-agent': 'threshold-conformance'
  }
  if (request.bearer !== undefined) headers.authorization = `Bearer ${request.bearer}`
  if (request.cookie !== undefined) headers.cookie = request.cookie
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
      const status = response.statusCode ?? 0
      const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase()
      const answer = (text: string, unreadable: string | null): void =>
        finish({ kind: 'answer', status, headers: response.headers, text, encoding, unreadable, elapsedMs: elapsed() })
      let codings: string[]
      try {
        codings = contentCodings(response.headers['content-encoding'])
      } catch (error) {
        response.resume()
        answer('', (error as UnreadableAnswerError).reason)
        return
      }
      readDecodedBody(response, codings, MAX_ANSWER_BYTES).then(
        (body) => answer(body.toString('utf8'), null),
        (error: NodeJS.ErrnoException) => {
          if (error instanceof UnreadableAnswerError) answer('', error.reason)
          else finish({ kind: 'no-answer', reason: `the answer was cut off: ${connectionProblem(error, url)}`, timedOut: false, elapsedMs: elapsed() })
        })
    }
  })
}
