import type { FastifyHttpProxyOptions } from '@fastify/http-proxy'
import type { Readable } from 'node:stream'
import { mediaType } from './request-bodies.js'
import { noteUpstreamFailure, type ProxyReply, type UpstreamFailure } from './upstream.js'

/** Largest answer the edge reads from a backend on a JSON call; the spec's answers are a few hundred bytes. */
export const MAX_JSON_ANSWER_BYTES = 64 * 1024

type OnResponse = NonNullable<NonNullable<FastifyHttpProxyOptions['replyOptions']>['onResponse']>

/** The backend's headers that describe a body the edge does not pass on. */
const BODY_HEADERS = ['content-type', 'content-length', 'set-cookie', 'www-authenticate'] as const

const isJson = (contentType: unknown): boolean => {
  const type = mediaType(typeof contentType === 'string' ? contentType : undefined)
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/** The failure an answer that is not JSON stands for: 503 and 504 keep their meaning, anything else is a bad gateway. */
function failureForStatus (status: number): UpstreamFailure {
  if (status === 503) return 'unavailable'
  if (status === 504) return 'timeout'
  return 'bad-gateway'
}

/** The whole body, or null once it grows past `limit` (the rest is not read). */
async function readAtMost (stream: Readable, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of stream) {
    length += (chunk as Buffer).length
    if (length > limit) {
      stream.destroy()
      return null
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks, length)
}

/**
 * reply-from's `onResponse` for the JSON calls. The backend's answer is read
 * whole and passed on, byte for byte, only when it is JSON, as the page
 * expects. Anything else (an HTML error page with a stack trace, a body cut
 * off or stalled, an answer far too large) becomes the edge's own JSON
 * failure: the visitor gets a message the page can show, and nothing the
 * backend did not mean to say.
 */
export function passOnJsonAnswers (options: {
  readonly upstreamName: string
  readonly onFailure: (reply: ProxyReply, failure: UpstreamFailure) => void
}): OnResponse {
  function fail (reply: ProxyReply, failure: UpstreamFailure): void {
    for (const name of BODY_HEADERS) reply.removeHeader(name)
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
    const contentType = reply.getHeader('content-type')
    if (!isJson(contentType)) {
      stream.resume()
      reply.log.warn({ upstream: options.upstreamName, status, contentType }, 'upstream answer is not JSON')
      fail(reply, failureForStatus(status))
      return
    }
    readAtMost(stream, MAX_JSON_ANSWER_BYTES).then((body) => {
      let reason: string | null = body === null ? 'larger than the limit' : null
      if (body !== null) {
        try {
          JSON.parse(body.toString('utf8'))
        } catch {
          reason = 'malformed JSON'
        }
      }
      if (reason !== null) {
        reply.log.warn({ upstream: options.upstreamName, status, reason }, 'upstream answer is not JSON')
        fail(reply, 'bad-gateway')
        return
      }
      void reply.header('content-length', body!.length).send(body)
    }, (error: unknown) => fail(reply, noteUpstreamFailure(reply, error, options.upstreamName)))
  }
}
