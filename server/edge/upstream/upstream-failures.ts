import { clientWentAway, logFailure } from './client-gone.js'
import type { EdgeMetrics } from '../metrics/metrics.js'

/**
 * How a call to a backend failed, for operators: the `kind` field of the
 * failure log lines, the same values as the `kind` label of the upstream
 * failure metric. `refused`: no connection (refused, unknown host,
 * unreachable, or a TLS certificate that does not verify); `reset`: the
 * connection was closed or reset before a whole answer; `timeout`; `unreadable`:
 * the backend answered something that cannot be read (not HTTP, a redirect,
 * HTML where JSON is due, oversized, malformed); `server_error`: a 5xx answer.
 */
export type UpstreamFailureKind = 'refused' | 'reset' | 'timeout' | 'unreadable' | 'server_error'

/** Every code in an error and its causes (reply-from and undici wrap the socket's error). */
export function errorCodes (error: unknown): string[] {
  const codes: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') codes.push(code)
    const errors = (current as { errors?: unknown }).errors
    if (Array.isArray(errors)) codes.push(...errors.flatMap(errorCodes))
    current = (current as { cause?: unknown }).cause
  }
  return codes
}

export const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT',
  'FST_REPLY_FROM_GATEWAY_TIMEOUT', 'FST_REPLY_FROM_CONNECT_TIMEOUT', 'ETIMEDOUT'
])
/** No connection was made: refused, unknown host, unreachable (reply-from's 503 for the same). */
export const REFUSED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'FST_REPLY_FROM_SERVICE_UNAVAILABLE'])
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ERR_STREAM_PREMATURE_CLOSE'])
/** reply-from's error for a status that is not HTTP's (999), undici's for headers past its 16 KiB limit. */
export const UNREADABLE_CODES = new Set(['FST_REPLY_FROM_BAD_GATEWAY', 'UND_ERR_HEADERS_OVERFLOW'])

/** OpenSSL's verification codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT…) and Node's TLS errors. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/

/**
 * Whether the call failed on TLS: a certificate that does not verify, or a
 * handshake that failed. Never a passing fault of the backend: a
 * configuration (or an attack) that fails every call until someone acts.
 */
export function isTlsFailure (error: unknown): boolean {
  return errorCodes(error).some((code) => TLS_CODE.test(code))
}

/** The kind of a call that gave no usable answer, from its error. */
export function failureKindOf (error: unknown): UpstreamFailureKind {
  const codes = errorCodes(error)
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return 'timeout'
  if (codes.some((code) => REFUSED_CODES.has(code) || TLS_CODE.test(code))) return 'refused'
  if (codes.some((code) => RESET_CODES.has(code))) return 'reset'
  if (codes.some((code) => UNREADABLE_CODES.has(code) || code.startsWith('HPE_'))) return 'unreadable'
  // Undici's "other side closed" and friends carry no code of their own above: the connection ended.
  return 'reset'
}

/** The kind of an answer the edge could not use: a 5xx is the backend's own failure, anything else unreadable. */
export function failureKindOfStatus (status: number): UpstreamFailureKind {
  return status >= 500 && status <= 599 ? 'server_error' : 'unreadable'
}

/**
 * The failure log lines' messages by kind, listed in docs/operations.md
 * ("Logs worth alerting on"): no whole answer (refused, reset, timed out, or
 * TLS that does not verify); an answer the edge cannot read; a 5xx answer,
 * whether passed on to the page (a JSON error) or replaced by the edge's own.
 */
const UPSTREAM_FAILURE_MESSAGES: Readonly<Record<UpstreamFailureKind, string>> = {
  refused: 'upstream call failed',
  reset: 'upstream call failed',
  timeout: 'upstream call failed',
  unreadable: 'upstream answer unreadable',
  server_error: 'upstream server error'
}

/** A request as the failure log reads it (the edge's and the proxies' request types alike), with the edge's metrics. */
type LoggedRequest = Parameters<typeof logFailure>[0] & { readonly raw: object, readonly server: { readonly metrics: EdgeMetrics | null } }

const callStarts = new WeakMap<object, number>()

/** Notes when the call to the backend starts, for the elapsed time of its failure line. */
export function startUpstreamClock (request: { readonly raw: object }): void {
  callStarts.set(request.raw, performance.now())
}

/** Milliseconds since the call to the backend started (since the request arrived, for a call never clocked). */
export function upstreamElapsedMs (request: { readonly raw: object }, fallbackMs: number): number {
  const started = callStarts.get(request.raw)
  return Math.round(started === undefined ? fallbackMs : performance.now() - started)
}

export interface UpstreamFailureFacts {
  /** `accounts` or `edge-auth`. */
  readonly upstream: string
  readonly kind: UpstreamFailureKind
  /** The backend's HTTP status, where it answered. */
  readonly status?: number
  readonly elapsedMs: number
  /** Further fields of the line (reason, contentType, the visitor-facing `failure`). */
  readonly [field: string]: unknown
}

/**
 * The one way a failed backend call is logged: the kind's message
 * ({@link UPSTREAM_FAILURE_MESSAGES}) with the upstream, the kind, the status
 * and the elapsed time. `warn`: a backend's trouble, which an operator
 * watches as a rate; `error` for TLS failures, which fail every call until
 * the configuration (or the certificate) is fixed. With the client gone, an
 * info line (client-gone.ts). Counted too, as threshold_upstream_failures_total
 * by upstream and kind, unless the client's leaving is what ended the call.
 */
export function logUpstreamFailure (request: LoggedRequest, facts: UpstreamFailureFacts, error?: unknown, message: string = UPSTREAM_FAILURE_MESSAGES[facts.kind]): void {
  if (error === undefined || !clientWentAway(request)) {
    request.server.metrics?.upstreamFailure(facts.upstream === 'accounts' ? 'accounts' : 'edge_auth', facts.kind)
  }
  const tls = error !== undefined && isTlsFailure(error)
  const fields = tls ? { ...facts, reason: 'tls' } : facts
  if (error !== undefined) {
    logFailure(request, tls ? 'error' : 'warn', error, message, fields)
    return
  }
  request.log.warn(fields, message)
}
