import { GRPC_UNAVAILABLE } from './grpc-unavailable.js'

/**
 * gRPC status codes and the HTTP status → gRPC status mapping of docs/accounts-api.md, "The domain check",
 * in one table. grpc-web applies this mapping when a call fails at the HTTP
 * level; the tests hold the real client to this table row by row.
 * The tables are marked pure: the first load uses one status of them
 * (client/domain-check/check-domain.ts), and the bundler can then leave the
 * HTTP mapping to the lazy domain-check chunk (the first-load budget,
 * test/build/bundle-budget.integration.test.ts).
 */
export const GRPC_STATUS = /* @__PURE__ */ Object.freeze({
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: GRPC_UNAVAILABLE,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16
})

export type GrpcStatusName = keyof typeof GRPC_STATUS

export const HTTP_STATUS_TO_GRPC_STATUS: Readonly<Record<number, GrpcStatusName>> = /* @__PURE__ */ Object.freeze({
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  412: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED'
})

/** The gRPC status for a failed call's HTTP status; anything not listed is UNKNOWN. */
export function grpcStatusForHttpStatus (httpStatus: number): number {
  return GRPC_STATUS[HTTP_STATUS_TO_GRPC_STATUS[httpStatus] ?? 'UNKNOWN']
}
