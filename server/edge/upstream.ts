import type { FastifyHttpProxyOptions } from '@fastify/http-proxy'
import type { FastifyReply } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import { REQUEST_ID_HEADER } from '../shared/logger.js'

/**
 * Headers a client may send to claim an address, host or scheme. They are
 * dropped: the edge states these facts itself, trusting only TRUST_PROXY.
 */
const SPOOFABLE_REQUEST_HEADERS = /^(forwarded|x-forwarded-.*|x-real-ip|x-client-ip|true-client-ip|x-cluster-client-ip|cf-connecting-ip|fastly-client-ip|x-original-forwarded-for|x-request-id)$/

/** undici options for a backend: verified TLS and the three timeouts. */
export function upstreamDispatcherOptions (timeoutMs: number): Record<string, unknown> {
  return {
    // @fastify/reply-from turns certificate verification off unless told otherwise.
    tls: { rejectUnauthorized: true },
    connect: { rejectUnauthorized: true, timeout: timeoutMs },
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 128,
    pipelining: 1
  }
}

type ReplyOptions = NonNullable<FastifyHttpProxyOptions['replyOptions']>
/** A reply as the proxy's hooks see it. */
export type ProxyReply = Parameters<NonNullable<ReplyOptions['onError']>>[0]

/** The request headers sent to a backend. */
export const rewriteRequestHeaders: NonNullable<ReplyOptions['rewriteRequestHeaders']> = (request, headers) => {
  const rewritten: IncomingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!SPOOFABLE_REQUEST_HEADERS.test(name)) rewritten[name] = value
  }
  rewritten['x-forwarded-for'] = request.ip
  rewritten['x-forwarded-proto'] = request.protocol
  rewritten['x-forwarded-host'] = request.host
  rewritten[REQUEST_ID_HEADER] = request.id
  return rewritten
}

/**
 * Keeps only the response headers in `allowed`: a backend cannot weaken the
 * edge's security headers, make an answer cacheable or announce its software.
 */
export function keepResponseHeaders (allowed: ReadonlySet<string>) {
  return function rewriteResponseHeaders (headers: IncomingHttpHeaders): IncomingHttpHeaders {
    const kept: IncomingHttpHeaders = {}
    for (const [name, value] of Object.entries(headers)) {
      if (allowed.has(name.toLowerCase())) kept[name] = value
    }
    return kept
  }
}

/** Why a call to a backend failed, as far as the visitor needs to know. */
export type UpstreamFailure = 'timeout' | 'unavailable' | 'bad-gateway'

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT',
  'FST_REPLY_FROM_GATEWAY_TIMEOUT', 'FST_REPLY_FROM_CONNECT_TIMEOUT', 'ETIMEDOUT'
])
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'FST_REPLY_FROM_SERVICE_UNAVAILABLE'
])

function errorCodes (error: unknown): string[] {
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

export function classifyUpstreamError (error: unknown): UpstreamFailure {
  const codes = errorCodes(error)
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return 'timeout'
  if (codes.some((code) => UNAVAILABLE_CODES.has(code))) return 'unavailable'
  return 'bad-gateway'
}

export const UPSTREAM_FAILURE_STATUS: Readonly<Record<UpstreamFailure, number>> = {
  timeout: 504,
  unavailable: 503,
  'bad-gateway': 502
}

/**
 * Logs a backend failure in full (for operators) and returns its class; what
 * reaches the visitor is chosen by the caller and names no address or port.
 */
export function noteUpstreamFailure (reply: FastifyReply | ProxyReply, error: unknown, upstreamName: string): UpstreamFailure {
  const failure = classifyUpstreamError(error)
  reply.log.warn({ err: error, upstream: upstreamName, failure }, 'upstream call failed')
  return failure
}

/**
 * reply-from options shared by the proxies: header hygiene both ways, and
 * failures answered by `onFailure` instead of the library's default (which
 * would put the backend's address in the message).
 */
export function upstreamReplyOptions (options: {
  readonly allowedResponseHeaders: ReadonlySet<string>
  readonly upstreamName: string
  readonly onFailure: (reply: ProxyReply, failure: UpstreamFailure) => void
}): ReplyOptions {
  return {
    rewriteRequestHeaders,
    rewriteHeaders: keepResponseHeaders(options.allowedResponseHeaders),
    onError: (reply, { error }) => options.onFailure(reply, noteUpstreamFailure(reply, error, options.upstreamName))
  }
}
