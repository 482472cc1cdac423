import type { FastifyHttpProxyOptions } from '@fastify/http-proxy'
import type { FastifyRequest } from 'fastify'
import { HttpError } from './http-error.js'
import { startUpstreamClock } from '../upstream/upstream-failures.js'

/** Largest body the edge forwards to a backend on the page's calls (16 KiB). */
export const PROXY_BODY_LIMIT_BYTES = 16 * 1024

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType (contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase()
}

/** An onRequest hook refusing with 415 a body that has none of the `accepted` types. */
export function requireContentType (accepted: readonly string[]) {
  const acceptedTypes = new Set(accepted)
  return async function checkContentType (request: FastifyRequest): Promise<void> {
    if (!acceptedTypes.has(mediaType(request.headers['content-type']))) {
      // Listed with commas: media types are language-neutral, and a joining word would be English inside a translated text.
      throw new HttpError(415, 'server.bodyType', { types: accepted.join(', ') })
    }
  }
}

/**
 * A content-type parser for bodies read whole (Fastify enforces the limit)
 * and forwarded untouched by `forwardReadBody`: `json` bodies must parse
 * first, but the backend receives the bytes the page sent, not a re-encoding.
 */
export function bufferedBodyParser (check: 'json' | 'raw') {
  return function parseBufferedBody (_request: FastifyRequest, body: Buffer, done: (error: Error | null, body?: unknown) => void): void {
    if (check === 'json') {
      try {
        JSON.parse(body.toString('utf8'))
      } catch {
        done(new HttpError(400, 'server.bodyNotJson'))
        return
      }
    }
    done(null, body)
  }
}

/**
 * The proxy's handler: a body already read (and checked) is sent as one
 * buffer with its own Content-Type. reply-from would otherwise JSON-encode a
 * buffer, and a stream goes out in more, smaller writes than one buffer.
 * The call's clock starts here, for the elapsed time of a failure's log line.
 */
export const forwardReadBody: NonNullable<FastifyHttpProxyOptions['handler']> = (request, reply, destination, options) => {
  startUpstreamClock(request)
  return reply.from(destination, Buffer.isBuffer(request.body)
    ? { ...options, body: request.body, contentType: request.headers['content-type'] ?? 'application/octet-stream' }
    : options)
}
