import {
  CheckDomainAuthorizationRequest,
  CheckDomainAuthorizationResponse,
  CheckDomainAuthorizationResponse_Authorization as Authorization
} from '../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { DATA_FRAME, decodeFrames, encodeFrame, isCompressed, TRAILER_FRAME } from '../../shared/domain-check/grpc-web-frames.js'
import { REQUEST_ID_HEADER } from '../../shared/logger.js'
import { OutboundCallError, postOnce, type OutboundAnswer } from '../upstream/outbound-post.js'
import { failureKindOf, failureKindOfStatus, type UpstreamFailureKind } from '../upstream/upstream-failures.js'

/**
 * The domain check as the edge makes it itself (DOMAIN_CHECK_ENFORCED): the
 * same gRPC-web call the page makes (binary, one unary request), to
 * EDGE_AUTH_URL or the embedded responder, within the upstream timeout.
 */

/** The answer of a call that succeeded; proto3 enums are open, so a later value is `unrecognised`. */
export type DomainAuthorization = 'authorized' | 'unauthorized' | 'unspecified' | 'unrecognised'

/**
 * A call that did not give an answer; `reason` is for the log, `kind` and
 * `status` (where the service answered) for the failure's log fields.
 */
export class DomainCheckFailedError extends Error {
  readonly code = 'THRESHOLD_DOMAIN_CHECK_FAILED'
  readonly kind: UpstreamFailureKind
  readonly status: number | null
  constructor (readonly reason: string, options: ErrorOptions & { readonly kind?: UpstreamFailureKind, readonly status?: number } = {}) {
    super(`domain check failed: ${reason}`, options)
    this.name = 'DomainCheckFailedError'
    this.kind = options.kind ?? 'unreadable'
    this.status = options.status ?? null
  }
}

/** The kind of an outbound call that gave no answer. */
function kindOfOutboundFailure (error: unknown): UpstreamFailureKind {
  if (!(error instanceof OutboundCallError)) return failureKindOf(error)
  switch (error.reason) {
    case 'timed out': return 'timeout'
    case 'cut off': return 'reset'
    case 'larger than the limit': return 'unreadable'
    case 'unreachable': return failureKindOf(error.cause)
  }
}

/** The answer is one message of a few bytes and its trailers; anything far larger is not an answer. */
const ANSWER_LIMIT_BYTES = 16 * 1024

function authorizationName (value: number): DomainAuthorization {
  switch (value) {
    case Authorization.AUTHORIZATION_AUTHORIZED: return 'authorized'
    case Authorization.AUTHORIZATION_UNAUTHORIZED: return 'unauthorized'
    case Authorization.AUTHORIZATION_UNSPECIFIED: return 'unspecified'
    default: return 'unrecognised'
  }
}

/** The grpc-status of a trailer frame's `name:value` lines, or null when it names none. */
function trailerStatus (payload: Buffer): string | null {
  for (const line of payload.toString('latin1').split('\r\n')) {
    const separator = line.indexOf(':')
    if (separator > 0 && line.slice(0, separator).trim().toLowerCase() === 'grpc-status') return line.slice(separator + 1).trim()
  }
  return null
}

/** The authorization in a gRPC-web answer's body: one uncompressed message, then trailers with status 0. */
function authorizationInBody (body: Buffer, headerStatus: string | null): DomainAuthorization {
  let frames
  try {
    frames = decodeFrames(body)
  } catch (error) {
    throw new DomainCheckFailedError('malformed frames', { cause: error })
  }
  const messages = frames.filter((frame) => (frame.flag & TRAILER_FRAME) === DATA_FRAME)
  const trailers = frames.filter((frame) => (frame.flag & TRAILER_FRAME) === TRAILER_FRAME)
  const status = trailers.length === 0 ? headerStatus : trailerStatus(trailers[0]!.payload)
  // A gRPC error status is the service's own failure; a missing one, an answer that cannot be read.
  if (status !== '0') throw new DomainCheckFailedError(`grpc-status ${status ?? 'missing'}`, { kind: status === null ? 'unreadable' : 'server_error' })
  if (messages.length !== 1) throw new DomainCheckFailedError(`${messages.length} messages`)
  if (isCompressed(messages[0]!)) throw new DomainCheckFailedError('compressed message')
  try {
    return authorizationName(CheckDomainAuthorizationResponse.deserializeBinary(messages[0]!.payload).getAuthorization())
  } catch (error) {
    throw new DomainCheckFailedError('undecodable message', { cause: error })
  }
}

/**
 * Asks `upstream` (a base URL) whether `domain` may sign in. Resolves with
 * the service's answer; rejects with a {@link DomainCheckFailedError} when
 * there is none: the service is down, slow (past `timeoutMs`), redirects,
 * fails, or answers something that is not a gRPC-web answer with status OK.
 */
export async function callDomainCheck (options: {
  readonly upstream: string
  /** Sent on the call: the embedded responder's secret (server/shared/embedded-secret.ts); none to EDGE_AUTH_URL. */
  readonly upstreamHeaders?: Readonly<Record<string, string>>
  readonly domain: string
  readonly timeoutMs: number
  readonly requestId: string
}): Promise<DomainAuthorization> {
  const message = new CheckDomainAuthorizationRequest().setDomain(options.domain).serializeBinary()
  let answer: OutboundAnswer
  try {
    answer = await postOnce(`${options.upstream}${CHECK_DOMAIN_AUTHORIZATION_PATH}`, {
      headers: {
        ...options.upstreamHeaders,
        'content-type': 'application/grpc-web+proto',
        accept: 'application/grpc-web+proto',
        'accept-encoding': 'identity',
        'x-grpc-web': '1',
        'grpc-timeout': `${options.timeoutMs}m`,
        [REQUEST_ID_HEADER]: options.requestId
      },
      body: encodeFrame(DATA_FRAME, message),
      timeoutMs: options.timeoutMs,
      limitBytes: ANSWER_LIMIT_BYTES
    })
  } catch (error) {
    throw new DomainCheckFailedError(error instanceof OutboundCallError ? error.reason : 'unreachable', { cause: error, kind: kindOfOutboundFailure(error) })
  }
  return readDomainCheckAnswer(answer)
}

/**
 * The authorization a whole gRPC-web answer carries, read as the edge reads
 * its own call's answer (and the page the proxied one's): status 200, a
 * binary gRPC-web type, no coding, grpc-status 0, one message. Throws a
 * {@link DomainCheckFailedError} for anything else.
 */
export function readDomainCheckAnswer (answer: OutboundAnswer): DomainAuthorization {
  if (answer.status !== 200) throw new DomainCheckFailedError(`HTTP status ${answer.status}`, { kind: failureKindOfStatus(answer.status), status: answer.status })
  const contentType = (answer.headers['content-type'] ?? '').toLowerCase()
  if (!contentType.startsWith('application/grpc-web') || contentType.startsWith('application/grpc-web-text')) {
    throw new DomainCheckFailedError('not a binary gRPC-web answer')
  }
  if (answer.headers['content-encoding'] !== undefined && answer.headers['content-encoding'] !== 'identity') {
    throw new DomainCheckFailedError('a coded answer')
  }
  const headerStatus = typeof answer.headers['grpc-status'] === 'string' ? answer.headers['grpc-status'] : null
  // A trailers-only answer: the status is in the headers, and there is no message.
  if (headerStatus !== null && headerStatus !== '0') throw new DomainCheckFailedError(`grpc-status ${headerStatus}`, { kind: 'server_error' })
  return authorizationInBody(answer.body, headerStatus)
}
