import httpProxy from '@fastify/http-proxy'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { rateLimitOptions, type RateLimitSettings } from './rate-limit.js'
import { bufferedBodyParser, PROXY_BODY_LIMIT_BYTES, requireContentType } from './request-bodies.js'
import { rejectCrossSiteRequests } from './same-origin-guard.js'
import { upstreamDispatcherOptions, upstreamReplyOptions, type ProxyReply, type UpstreamFailure } from './upstream.js'

/** gRPC-web content types: binary, and the base64 text form. */
export const GRPC_WEB_CONTENT_TYPES = [
  'application/grpc-web',
  'application/grpc-web+proto',
  'application/grpc-web-text',
  'application/grpc-web-text+proto'
] as const

/** gRPC status codes the edge itself answers with (spec §8). */
const GRPC_STATUS_FOR_FAILURE: Readonly<Record<UpstreamFailure, number>> = {
  timeout: 4, // DEADLINE_EXCEEDED
  unavailable: 14, // UNAVAILABLE
  'bad-gateway': 14 // UNAVAILABLE
}

const GRPC_RESPONSE_HEADERS = new Set([
  'content-type', 'content-length', 'grpc-status', 'grpc-message', 'grpc-status-details-bin', 'grpc-encoding'
])

export interface GrpcWebProxyOptions {
  readonly upstream: string
  readonly timeoutMs: number
  readonly rateLimit: RateLimitSettings
}

/**
 * A gRPC-web "trailers-only" answer: HTTP 200 with the status in the headers,
 * which is how gRPC-web clients expect a call to fail before any message.
 */
export function sendGrpcWebError (reply: FastifyReply | ProxyReply, grpcStatus: number, message: string): void {
  void reply
    .code(200)
    .header('content-type', 'application/grpc-web+proto')
    .header('grpc-status', String(grpcStatus))
    .header('grpc-message', encodeURIComponent(message))
    .send()
}


/**
 * The same-origin domain-check call, proxied byte for byte (frames and
 * trailers untouched) to the edge auth metadata service at the same path.
 */
export async function grpcWebProxy (app: FastifyInstance, options: GrpcWebProxyOptions): Promise<void> {
  await app.register(rateLimit, rateLimitOptions(options.rateLimit, 'edge-auth'))
  app.setErrorHandler(async (error: { statusCode?: number, message?: string }, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error({ err: error }, 'gRPC-web proxy failed')
    return reply.code(status).send({ error: status === 500 ? 'Something went wrong.' : error.message })
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
      undici: upstreamDispatcherOptions(options.timeoutMs),
      disableRequestLogging: true,
      replyOptions: upstreamReplyOptions({
        allowedResponseHeaders: GRPC_RESPONSE_HEADERS,
        upstreamName: 'edge-auth',
        onFailure: (reply, failure) =>
          sendGrpcWebError(reply, GRPC_STATUS_FOR_FAILURE[failure], 'The domain authorization service is unavailable.')
      })
    })
  })

  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: CHECK_DOMAIN_AUTHORIZATION_PATH,
    config: { rateLimit: false },
    handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send({ error: 'Method not allowed.' })
  })
}
