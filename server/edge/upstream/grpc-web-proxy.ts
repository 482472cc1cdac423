import httpProxy from '@fastify/http-proxy'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { grpcStatusForHttpStatus } from '../../../common/domain-check/grpc-status.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { logFailure } from './client-gone.js'
import { readDomainCheckAnswer, type DomainAuthorization } from '../domain-check/domain-check-call.js'
import type { DomainCheckResult, EdgeMetrics } from '../metrics/metrics.js'
import { contentCodings, readDecodedBody, UnreadableAnswerError } from '../../shared/content-codings.js'
import { rateLimitOptions, type RateLimitSettings } from '../http/rate-limit.js'
import { bufferedBodyParser, forwardReadBody, PROXY_BODY_LIMIT_BYTES, requireContentType } from '../http/request-bodies.js'
import { rejectCrossSiteRequests } from '../http/same-origin-guard.js'
import { failureKindOfStatus, logUpstreamFailure, upstreamElapsedMs } from './upstream-failures.js'
import { classifyUpstreamError, forwardRequestHeaders, upstreamDispatcherOptions, upstreamReplyOptions, type ProxyReply, type RequestHeaderAllowlist, type UpstreamFailure } from './upstream.js'

/** gRPC-web content types: binary, and the base64 text form. */
const GRPC_WEB_CONTENT_TYPES = [
  'application/grpc-web',
  'application/grpc-web+proto',
  'application/grpc-web-text',
  'application/grpc-web-text+proto'
] as const

/**
 * The HTTP status the edge answers with when the backend fails; through
 * HTTP_STATUS_TO_GRPC_STATUS they read as DEADLINE_EXCEEDED and UNAVAILABLE.
 */
const HTTP_STATUS_FOR_FAILURE: Readonly<Record<UpstreamFailure, number>> = {
  timeout: 504,
  unavailable: 503,
  'bad-gateway': 503,
  unreadable: 503
}

const GRPC_RESPONSE_HEADERS = new Set([
  'content-type', 'content-length', 'grpc-status', 'grpc-message', 'grpc-status-details-bin', 'grpc-encoding'
])

/**
 * What the domain-check service receives of a request: the gRPC-web headers
 * alone (the body's type and length, `Accept`, `X-Grpc-Web`, `X-User-Agent`,
 * and the deadline, `grpc-timeout`), and the edge's request id. It needs no
 * cookie, no client address and no host (upstream.ts says what else is left out).
 */
const GRPC_WEB_REQUEST_HEADERS: RequestHeaderAllowlist = {
  headers: new Set(['content-type', 'content-length', 'accept', 'x-grpc-web', 'x-user-agent', 'grpc-timeout']),
  // Accept-Language: the language the edge chose, should the domain check word anything for the visitor.
  statesLocale: true,
  onlyOn: {},
  cookies: new Set(),
  forwarding: false,
  // The answer's Content-Encoding is not passed on (the page reads frames), so it must come plain.
  stated: { 'accept-encoding': 'identity' }
}

/** A unary answer is one small message and its trailers; a coded one is decoded within this. */
const CODED_ANSWER_LIMIT_BYTES = 16 * 1024

export interface GrpcWebProxyOptions {
  readonly upstream: string
  /** Sent on every call: the embedded responder's secret (server/shared/embedded-secret.ts); none to EDGE_AUTH_URL. */
  readonly upstreamHeaders?: Readonly<Record<string, string>>
  readonly timeoutMs: number
  readonly rateLimit: RateLimitSettings
}

const isGrpcWeb = (contentType: unknown): boolean =>
  typeof contentType === 'string' && contentType.toLowerCase().startsWith('application/grpc-web')

/**
 * A failure on the gRPC-web route, in gRPC-web's own form: the HTTP status,
 * and a `grpc-status` header that HTTP_STATUS_TO_GRPC_STATUS derives from it, with
 * the gRPC-web content type. grpc-web maps an HTTP status to a gRPC status
 * only when the answer is typed as gRPC-web (anything else becomes UNKNOWN),
 * so every failure the page can meet here is sent this way, and the page's
 * status is the table's whichever way the client reads it.
 */
function sendGrpcWebError (reply: FastifyReply | ProxyReply, httpStatus: number, message: string): void {
  reply.removeHeader('content-length')
  void reply
    .code(httpStatus)
    .header('content-type', 'application/grpc-web+proto')
    .header('grpc-status', String(grpcStatusForHttpStatus(httpStatus)))
    .header('grpc-message', encodeURIComponent(message))
    .send()
}


const UPSTREAM_NAME = 'edge-auth'

/** The failure log line's facts about an answer with `status`. */
function answerFacts (reply: ProxyReply, status: number) {
  return { upstream: UPSTREAM_NAME, kind: failureKindOfStatus(status), status, elapsedMs: upstreamElapsedMs(reply.request, reply.elapsedTime) }
}

/** The domain check's result as the page reads the answer: a value it does not know, or no answer, has failed. */
function pageCheckResult (reply: ProxyReply, body: Buffer): DomainCheckResult {
  let authorization: DomainAuthorization
  try {
    const contentType = reply.getHeader('content-type')
    const grpcStatus = reply.getHeader('grpc-status')
    authorization = readDomainCheckAnswer({
      status: reply.statusCode,
      headers: {
        ...(typeof contentType === 'string' ? { 'content-type': contentType } : {}),
        ...(typeof grpcStatus === 'string' ? { 'grpc-status': grpcStatus } : {})
      },
      body
    })
  } catch {
    return 'failed'
  }
  return authorization === 'unrecognised' ? 'failed' : authorization
}

/**
 * gRPC statuses by which the service says it failed itself (UNKNOWN,
 * DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS), as a
 * trailers-only answer with HTTP 200 carries them: counted as its
 * server_error. Not those a caller could provoke (INVALID_ARGUMENT…), so
 * that a hostile client cannot raise the backend's failure count.
 */
const SERVER_SIDE_GRPC_STATUSES = new Set(['2', '4', '12', '13', '14', '15'])

/** Whether a whole answer passed on is the service's own failure: a 5xx, or a server-side gRPC status in its headers. */
function passedOnFailure (reply: ProxyReply): { readonly grpcStatus?: string } | null {
  const grpcStatus = reply.getHeader('grpc-status')
  if (reply.statusCode >= 500) return {}
  return typeof grpcStatus === 'string' && SERVER_SIDE_GRPC_STATUSES.has(grpcStatus) ? { grpcStatus } : null
}

/**
 * A gRPC-web answer read whole (it is one small message and its trailers),
 * decoded when coded, and sent with its own length; one that cannot be is
 * UNAVAILABLE (503). With metrics, the domain check's result is read from it.
 * Failures are logged and counted by logUpstreamFailure, once: a failure
 * passed on is noted only once its body has been read whole.
 */
function passDecoded (request: FastifyRequest, reply: ProxyReply, stream: Readable, codingHeader: string | string[] | undefined, metrics: EdgeMetrics | null): void {
  const unreadable = (reason: string, error?: unknown): void => {
    metrics?.domainCheck('page', 'failed')
    logUpstreamFailure(request, { ...answerFacts(reply, reply.statusCode), kind: reason === 'cut off' ? 'reset' : 'unreadable', reason }, error)
    sendGrpcWebError(reply, 503, 'The domain authorization service answered in a form this edge cannot read.')
  }
  let codings: string[]
  try {
    codings = contentCodings(codingHeader)
  } catch (error) {
    stream.destroy()
    unreadable((error as UnreadableAnswerError).reason)
    return
  }
  readDecodedBody(stream, codings, CODED_ANSWER_LIMIT_BYTES).then((body) => {
    metrics?.domainCheck('page', pageCheckResult(reply, body))
    const failure = passedOnFailure(reply)
    if (failure !== null) logUpstreamFailure(request, { ...answerFacts(reply, reply.statusCode), kind: 'server_error', ...failure, passedOn: true })
    void reply.header('content-length', body.length).send(body)
  }, (error: unknown) => {
    if (error instanceof UnreadableAnswerError) unreadable(error.reason)
    else if (classifyUpstreamError(error) === 'timeout') {
      metrics?.domainCheck('page', 'failed')
      logUpstreamFailure(request, { ...answerFacts(reply, reply.statusCode), kind: 'timeout' }, error)
      sendGrpcWebError(reply, 504, 'The domain authorization service is unavailable.')
    } else unreadable('cut off', error)
  })
}

/**
 * The same-origin domain-check call, proxied byte for byte (frames and
 * trailers untouched) to the edge auth metadata service at the same path.
 */
export async function grpcWebProxy (app: FastifyInstance, options: GrpcWebProxyOptions): Promise<void> {
  await app.register(rateLimit, rateLimitOptions(options.rateLimit, UPSTREAM_NAME))
  app.setErrorHandler(async (error: { statusCode?: number, message?: string }, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) logFailure(request, 'error', error, 'gRPC-web proxy failed')
    sendGrpcWebError(reply, status, status === 500 ? 'Something went wrong.' : error.message ?? '')
    return reply
  })

  await app.register(async function proxiedCall (scope) {
    scope.addHook('onRequest', rejectCrossSiteRequests)
    scope.addHook('onRequest', requireContentType(GRPC_WEB_CONTENT_TYPES))
    for (const contentType of GRPC_WEB_CONTENT_TYPES) {
      scope.addContentTypeParser(contentType, { parseAs: 'buffer', bodyLimit: PROXY_BODY_LIMIT_BYTES }, bufferedBodyParser('raw'))
    }
    await scope.register(httpProxy, {
      upstream: options.upstream,
      routes: [CHECK_DOMAIN_AUTHORIZATION_PATH],
      httpMethods: ['POST'],
      proxyPayloads: false,
      handler: forwardReadBody,
      undici: upstreamDispatcherOptions(options.timeoutMs),
      disableRequestLogging: true,
      replyOptions: {
        ...upstreamReplyOptions({
          requestHeaders: forwardRequestHeaders(GRPC_WEB_REQUEST_HEADERS, { prefix: '', trust: null, upstreamHeaders: options.upstreamHeaders ?? {} }),
          allowedResponseHeaders: GRPC_RESPONSE_HEADERS,
          upstreamName: UPSTREAM_NAME,
          onFailure: (reply, failure) => {
            reply.server.metrics?.domainCheck('page', 'failed')
            sendGrpcWebError(reply, HTTP_STATUS_FOR_FAILURE[failure], 'The domain authorization service is unavailable.')
          }
        }),
        // A backend (or a balancer in front of it) may fail with a plain-text or
        // HTML page; it becomes a gRPC-web failure with the same HTTP status.
        // (reply-from has already copied the backend's headers onto the reply.)
        // Either way, a 5xx is logged as the backend's failure, and an answer
        // that is neither 2xx nor gRPC-web as one the edge cannot read.
        onResponse: (request, reply, response) => {
          const status = response.statusCode
          const grpcWeb = isGrpcWeb(reply.getHeader('content-type'))
          const metrics = reply.server.metrics
          if (!(status >= 200 && status < 300) && !grpcWeb) {
            logUpstreamFailure(request, { ...answerFacts(reply, status), reason: 'not gRPC-web' })
            response.stream.resume()
            metrics?.domainCheck('page', 'failed')
            sendGrpcWebError(reply, status, 'The domain authorization service failed.')
            return
          }
          const codingHeader = (response as unknown as { readonly headers: IncomingHttpHeaders }).headers['content-encoding']
          if (codingHeader === undefined && metrics === null) {
            // Streamed on as it comes (nothing is counted without metrics): a failure is logged as it starts.
            const failure = passedOnFailure(reply)
            if (failure !== null) logUpstreamFailure(request, { ...answerFacts(reply, status), kind: 'server_error', ...failure, passedOn: true })
            void reply.send(response.stream)
            return
          }
          // Asked for identity, coded all the same: decoded here, since the
          // page receives no Content-Encoding (and a bomb stops at the limit).
          // With metrics, a plain answer is read whole too, for its result.
          passDecoded(request as FastifyRequest, reply, response.stream, codingHeader, metrics)
        }
      }
    })
  })

  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: CHECK_DOMAIN_AUTHORIZATION_PATH,
    config: { rateLimit: false },
    handler: async (_request, reply) => {
      reply.header('allow', 'POST')
      sendGrpcWebError(reply, 405, 'Method not allowed.')
      return reply
    }
  })
}
