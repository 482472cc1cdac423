import type { FastifyInstance, FastifyReply } from 'fastify'
import { domainToASCII } from 'node:url'
import {
  CheckDomainAuthorizationRequest,
  CheckDomainAuthorizationResponse,
  CheckDomainAuthorizationResponse_Authorization as Authorization
} from '../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { requestLocale } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { decodeBase64Chunks, decodeFrames, DATA_FRAME, encodeFrame, encodeTrailers, isCompressed, MalformedFramesError } from '../../shared/domain-check/grpc-web-frames.js'

/** The gRPC status codes this responder answers with (docs/accounts-api.md#the-domain-check). */
const GRPC_STATUS = Object.freeze({ OK: 0, INVALID_ARGUMENT: 3, UNIMPLEMENTED: 12, INTERNAL: 13 })

const RESPONDER_BODY_LIMIT_BYTES = 16 * 1024

export interface EdgeAuthResponderOptions {
  readonly authorizedDomains: readonly string[]
  readonly unauthorizedDomains: readonly string[]
}

/** A domain in the form lists are compared in: lower case, ASCII (punycode), no trailing dot. */
export function canonicalDomain (domain: string): string {
  const trimmed = domain.trim().toLowerCase().replace(/\.$/, '')
  return domainToASCII(trimmed) || trimmed
}

/** AUTHORIZED, UNAUTHORIZED, or UNSPECIFIED for domains on neither list. */
export function authorizationFor (domain: string, options: EdgeAuthResponderOptions): number {
  const key = canonicalDomain(domain)
  if (key === '') return Authorization.AUTHORIZATION_UNSPECIFIED
  if (options.unauthorizedDomains.some((listed) => canonicalDomain(listed) === key)) return Authorization.AUTHORIZATION_UNAUTHORIZED
  if (options.authorizedDomains.some((listed) => canonicalDomain(listed) === key)) return Authorization.AUTHORIZATION_AUTHORIZED
  return Authorization.AUTHORIZATION_UNSPECIFIED
}

const isText = (contentType: string | undefined): boolean => (contentType ?? '').startsWith('application/grpc-web-text')

function sendStatusOnly (reply: FastifyReply, text: boolean, grpcStatus: number, message: string): FastifyReply {
  return reply
    .code(200)
    .header('content-type', text ? 'application/grpc-web-text+proto' : 'application/grpc-web+proto')
    .header('grpc-status', String(grpcStatus))
    .header('grpc-message', encodeURIComponent(message))
    .send()
}

/**
 * The reference EdgeAuthMetadataService: a real gRPC-web endpoint (binary and
 * text), one unary call, answering from AUTHORIZED_DOMAINS and
 * UNAUTHORIZED_DOMAINS.
 */
export async function edgeAuthResponder (app: FastifyInstance, options: EdgeAuthResponderOptions): Promise<void> {
  for (const contentType of ['application/grpc-web', 'application/grpc-web+proto', 'application/grpc-web-text', 'application/grpc-web-text+proto']) {
    app.addContentTypeParser(contentType, { parseAs: 'buffer', bodyLimit: RESPONDER_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body))
  }

  app.post(CHECK_DOMAIN_AUTHORIZATION_PATH, async (request, reply) => {
    const text = isText(request.headers['content-type'])
    if (!Buffer.isBuffer(request.body)) {
      return reply.code(415).send({ error: say({ locale: requestLocale(request) }, 'request.grpcWebExpected') })
    }
    let domain: string
    try {
      const frames = decodeFrames(text ? decodeBase64Chunks(request.body.toString('latin1')) : request.body)
      const data = frames.filter((frame) => (frame.flag & 0x80) === DATA_FRAME)
      if (data.length !== 1) return sendStatusOnly(reply, text, GRPC_STATUS.INVALID_ARGUMENT, 'expected exactly one request message')
      if (isCompressed(data[0]!)) return sendStatusOnly(reply, text, GRPC_STATUS.UNIMPLEMENTED, 'compressed messages are not supported')
      domain = CheckDomainAuthorizationRequest.deserializeBinary(data[0]!.payload).getDomain()
    } catch (error) {
      request.log.info({ reason: error instanceof MalformedFramesError ? error.message : 'undecodable message' }, 'malformed domain check request')
      return sendStatusOnly(reply, text, GRPC_STATUS.INVALID_ARGUMENT, 'malformed request')
    }

    const answer = new CheckDomainAuthorizationResponse().setAuthorization(authorizationFor(domain, options))
    const body = Buffer.concat([encodeFrame(DATA_FRAME, answer.serializeBinary()), encodeTrailers(GRPC_STATUS.OK)])
    return reply
      .code(200)
      .header('content-type', text ? 'application/grpc-web-text+proto' : 'application/grpc-web+proto')
      .send(text ? body.toString('base64') : body)
  })
}
