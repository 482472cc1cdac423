import { GrpcWebClientBase, MethodDescriptor, MethodType, type Metadata, type RpcError } from 'grpc-web'
import {
  CheckDomainAuthorizationRequest,
  CheckDomainAuthorizationResponse,
  CheckDomainAuthorizationResponse_Authorization as Authorization
} from '../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { GRPC_STATUS } from '../../common/domain-check/grpc-status.js'
import { pageLanguageHeaders } from '../languages/page-language.js'

/**
 * The domain authorization check over gRPC-web (binary), to the page's own
 * origin. This module and what it imports (grpc-web, google-protobuf: about
 * 52 KB gzip) form a chunk of their own, loaded only on pages that ask for
 * the check.
 */

export type DomainCheckOutcome =
  | { readonly kind: 'answered', readonly authorization: 'authorized' | 'unauthorized' | 'unspecified' | 'unrecognised' }
  | { readonly kind: 'failed', readonly code: number }

const checkDomainAuthorizationMethod = new MethodDescriptor(
  CHECK_DOMAIN_AUTHORIZATION_PATH,
  MethodType.UNARY,
  CheckDomainAuthorizationRequest as unknown as new (...args: unknown[]) => CheckDomainAuthorizationRequest,
  CheckDomainAuthorizationResponse as unknown as new (...args: unknown[]) => CheckDomainAuthorizationResponse,
  (request: CheckDomainAuthorizationRequest) => request.serializeBinary(),
  (bytes: Uint8Array) => CheckDomainAuthorizationResponse.deserializeBinary(bytes)
)

const client = new GrpcWebClientBase({ format: 'binary' })

function authorizationName (value: number): Extract<DomainCheckOutcome, { kind: 'answered' }>['authorization'] {
  switch (value) {
    case Authorization.AUTHORIZATION_AUTHORIZED: return 'authorized'
    case Authorization.AUTHORIZATION_UNAUTHORIZED: return 'unauthorized'
    case Authorization.AUTHORIZATION_UNSPECIFIED: return 'unspecified'
    // proto3 enums are open: a value added to the service after this page was built.
    default: return 'unrecognised'
  }
}

/**
 * Asks whether `domain` may sign in. No time limit unless `timeoutMs` is
 * given (the spec's default is none). grpc-web passes a deadline on to the
 * server but stretches its own wait to at least a second, so the limit is
 * kept here by cancelling the call.
 */
export function checkDomainAuthorization (domain: string, options: { origin: string, timeoutMs: number | null }): Promise<DomainCheckOutcome> {
  const request = new CheckDomainAuthorizationRequest().setDomain(domain)
  // grpc-web sends metadata as request headers: Accept-Language among them, the page's language.
  const metadata: Metadata = { ...pageLanguageHeaders(), ...(options.timeoutMs === null ? {} : { deadline: String(Date.now() + options.timeoutMs) }) }
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let settled = false
    const finish = (outcome: DomainCheckOutcome): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const call = client.rpcCall(`${options.origin}${CHECK_DOMAIN_AUTHORIZATION_PATH}`, request, metadata, checkDomainAuthorizationMethod,
      (error: RpcError | null, response: CheckDomainAuthorizationResponse) => {
        if (error !== null && error !== undefined) {
          finish({ kind: 'failed', code: typeof error.code === 'number' ? error.code : GRPC_STATUS.UNKNOWN })
        } else {
          finish({ kind: 'answered', authorization: authorizationName(response.getAuthorization()) })
        }
      })
    if (options.timeoutMs !== null) {
      timer = setTimeout(() => {
        call.cancel()
        finish({ kind: 'failed', code: GRPC_STATUS.DEADLINE_EXCEEDED })
      }, options.timeoutMs)
    }
  })
}
