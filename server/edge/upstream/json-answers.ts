import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import type { FastifyHttpProxyOptions } from '@fastify/http-proxy'
import type { FastifyRequest } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import { logFailure } from './client-gone.js'
import { failureKindOfStatus, logUpstreamFailure, upstreamElapsedMs } from './upstream-failures.js'
import { contentCodings, readDecodedBody, UnreadableAnswerError } from '../../shared/content-codings.js'
import { mediaType } from '../http/request-bodies.js'
import { classifyUpstreamError, noteUpstreamFailure, type ProxyReply, type UpstreamFailure } from './upstream.js'

type OnResponse = NonNullable<NonNullable<FastifyHttpProxyOptions['replyOptions']>['onResponse']>

/** The backend's headers that describe a body the edge does not pass on. */
const BODY_HEADERS = ['content-type', 'content-length', 'set-cookie', 'www-authenticate'] as const

const isJson = (contentType: unknown): boolean => {
  const type = mediaType(typeof contentType === 'string' ? contentType : undefined)
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/**
 * What an answer that is not JSON stands for. 503 and 504 keep their meaning,
 * and a 502 in HTML or plain text is what a gateway in front of the backend
 * sends when it could not reach it: "could not be reached" is then the truth.
 * Any other status came from a backend that was reached and answered in a
 * form the page cannot read (an HTML error or login page, plain text).
 */
function failureForStatus (status: number): UpstreamFailure {
  if (status === 503) return 'unavailable'
  if (status === 504) return 'timeout'
  if (status === 502) return 'bad-gateway'
  return 'unreadable'
}

/** Redirects are never followed: the page's calls have no second location, and a redirect may point anywhere. */
const isRedirect = (status: number): boolean => status >= 300 && status < 400 && status !== 304

/** A decoded body as the JSON object the page reads, or why it is not one. */
function jsonObject (body: Buffer): { readonly object: Record<string, unknown> } | { readonly problem: string } {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    return { problem: 'malformed JSON' }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { object: value as Record<string, unknown> }
    : { problem: 'not a JSON object' }
}

/**
 * reply-from's `onResponse` for the JSON calls. The backend's answer is read
 * whole, decoded from any coding a browser would read (gzip, x-gzip, deflate,
 * br; see server/shared/content-codings.ts) within `limitBytes`, and passed on as plain
 * JSON with its own length, only when it is a JSON object, as the page
 * expects. Anything else becomes the edge's own JSON failure: the visitor
 * gets a message the page can show, and nothing the backend did not mean to
 * say. A backend that was reached but answered something the page cannot
 * read (an HTML page, a redirect, malformed, cut-off or oversized JSON, an
 * unknown coding) is `unreadable`, told apart from one that was not reached,
 * with one warning naming the status, content type and reason (never the body).
 */
export function passOnJsonAnswers (options: {
  readonly upstreamName: string
  readonly limitBytes: number
  readonly onFailure: (reply: ProxyReply, failure: UpstreamFailure) => void
  /**
   * A last look at a readable answer before it is passed on: a refusal
   * replaces it (its cookies included). See checkPasskeySignInAnswer.
   */
  readonly refusalOf?: (request: FastifyRequest, status: number, body: Buffer) => Promise<{ readonly status: number, readonly key: MessageKey } | null>
  /** Given each readable answer, before it is passed on (the sign-in metrics read its shape; server/edge/metrics/sign-in-metrics.ts). */
  readonly onAnswer?: (request: FastifyRequest, answer: Readonly<Record<string, unknown>>) => void
  /**
   * The answer as the browser receives it, once no refusal replaced it: the
   * same object passes on the backend's bytes as they came; another is sent
   * in its place; an UnreadableAnswerError thrown makes it `unreadable`, as a
   * malformed answer is (the token cookies' handling, server/edge/sessions/token-answers.ts).
   */
  readonly answerForBrowser?: (request: FastifyRequest, reply: ProxyReply, status: number, answer: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>
}): OnResponse {
  function dropBackendBodyHeaders (reply: ProxyReply): void {
    for (const name of BODY_HEADERS) reply.removeHeader(name)
  }

  function fail (reply: ProxyReply, failure: UpstreamFailure): void {
    dropBackendBodyHeaders(reply)
    options.onFailure(reply, failure)
  }

  return function onJsonAnswer (request, reply, response) {
    const stream = response.stream
    // reply-from has answered already when the backend's status was not a valid one.
    if (reply.sent) {
      stream.resume()
      return
    }
    const status = reply.statusCode
    if (status === 204 || status === 304 || request.method === 'HEAD') {
      void reply.send(stream)
      return
    }
    // The backend's own headers: the reply holds only those passed on, without Content-Encoding.
    const headers = (response as unknown as { readonly headers: IncomingHttpHeaders }).headers
    const contentType = headers['content-type']
    const facts = () => ({
      upstream: options.upstreamName,
      kind: failureKindOfStatus(status),
      status,
      elapsedMs: upstreamElapsedMs(reply.request, reply.elapsedTime)
    })
    const refuse = (failure: UpstreamFailure, reason: string, error?: unknown): void => {
      // A 5xx is the backend's own failure whatever its body (server_error); an
      // answer cut off mid-body is a connection that ended (reset), whatever its status.
      // logUpstreamFailure logs and counts it.
      const cutOff = reason === 'cut off' ? { kind: 'reset' as const } : {}
      logUpstreamFailure(reply.request, { ...facts(), ...cutOff, contentType, reason, failure }, error)
      fail(reply, failure)
    }
    if (isRedirect(status)) {
      stream.resume()
      refuse('unreadable', 'a redirect')
      return
    }
    if (!isJson(contentType)) {
      stream.resume()
      refuse(failureForStatus(status), 'not JSON')
      return
    }
    let codings: string[]
    try {
      codings = contentCodings(headers['content-encoding'])
    } catch (error) {
      stream.destroy()
      refuse('unreadable', (error as UnreadableAnswerError).reason)
      return
    }
    readDecodedBody(stream, codings, options.limitBytes).then((body) => {
      const read = jsonObject(body)
      if ('problem' in read) {
        refuse('unreadable', read.problem)
        return
      }
      options.onAnswer?.(request as FastifyRequest, read.object)
      return (options.refusalOf?.(request as FastifyRequest, status, body) ?? Promise.resolve(null)).then((refusal) => {
        if (refusal === null) {
          let passed: Readonly<Record<string, unknown>>
          try {
            passed = options.answerForBrowser?.(request as FastifyRequest, reply, status, read.object) ?? read.object
          } catch (error) {
            if (!(error instanceof UnreadableAnswerError)) throw error
            refuse('unreadable', error.reason)
            return
          }
          // The backend's own JSON error, which the page shows: passed on, and logged as the backend's failure.
          if (status >= 500) logUpstreamFailure(reply.request, { ...facts(), passedOn: true })
          const sent = passed === read.object ? body : Buffer.from(JSON.stringify(passed))
          void reply.header('content-length', sent.length).send(sent)
          return
        }
        dropBackendBodyHeaders(reply)
        void reply.code(refusal.status).send({ error: reply.request.server.messagesFor(reply.request as FastifyRequest).text(refusal.key) })
      }, (error: unknown) => {
        logFailure(reply.request, 'error', error, 'answer check failed')
        fail(reply, 'unreadable')
      })
    }, (error: unknown) => {
      if (error instanceof UnreadableAnswerError) {
        refuse('unreadable', error.reason)
        return
      }
      // The backend answered, then its connection failed mid-body: a cut-off
      // answer, unless it stalled (a timeout); logged with the error.
      if (classifyUpstreamError(error) === 'timeout') fail(reply, noteUpstreamFailure(reply, error, options.upstreamName))
      else refuse('unreadable', 'cut off', error)
    })
  }
}
