import type { FastifyHttpProxyOptions } from '@fastify/http-proxy'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { REQUEST_ID_HEADER } from '../../shared/logger.js'
import { clientAddress } from '../http/client-address.js'
import { errorCodes, failureKindOf, logUpstreamFailure, REFUSED_CODES, TIMEOUT_CODES, UNREADABLE_CODES, upstreamElapsedMs } from './upstream-failures.js'
import { forwardedHost } from '../http/host-header.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'

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

/**
 * The request headers one backend receives. Everything else a client sends is
 * dropped: override headers (`X-Original-URL`, `X-HTTP-Method-Override`),
 * claims about the client (`Forwarded`, `X-Real-IP`, `Client-IP`, `Via`),
 * credentials meant for someone else (`Proxy-Authorization`, the parent
 * domain's other cookies), the client's `Accept-Encoding` (the edge reads the
 * answers, and asks for them uncoded itself: see `stated`) and hop-by-hop headers (`Keep-Alive`,
 * `Upgrade`, `Expect`, `TE`…), which undici refuses to send at all.
 */
export interface RequestHeaderAllowlist {
  /** Client request headers passed on as sent, lower case. */
  readonly headers: ReadonlySet<string>
  /** Headers passed on only on some calls: name → the routes' paths, as the proxy's routes name them. */
  readonly onlyOn: Readonly<Record<string, ReadonlySet<string>>>
  /** The cookies passed on, by name; the Cookie header is cut down to these. */
  readonly cookies: ReadonlySet<string>
  /** Cookies passed on only on some calls: name → the routes' paths, as the proxy's routes name them. */
  readonly cookiesOnlyOn?: Readonly<Record<string, ReadonlySet<string>>>
  /** Whether the edge states the client address, scheme and host (X-Forwarded-For, -Proto, -Host). */
  readonly forwarding: boolean
  /** Headers the edge sends with its own value on every call, whatever the client sent, lower case. */
  readonly stated?: Readonly<Record<string, string>>
  /**
   * Whether the edge states `Accept-Language` as the language it chose for
   * the request (server/edge/languages/request-messages.ts), never the visitor's header as sent:
   * the backend then words its texts and emails in the page's language, and
   * never sees a 16 KB header of anything.
   */
  readonly statesLocale?: boolean
}

/** Headers about the body, which pass only with a body the edge sends. */
const BODY_HEADERS = new Set(['content-type', 'content-length'])

/** The Cookie header cut down to the `allowed` cookies; undefined when none is left. */
function keepCookies (cookieHeader: string, allowed: ReadonlySet<string>): string | undefined {
  const kept = cookieHeader.split(';').map((pair) => pair.trim()).filter((pair) => {
    const separator = pair.indexOf('=')
    return separator > 0 && allowed.has(pair.slice(0, separator).trim())
  })
  return kept.length === 0 ? undefined : kept.join('; ')
}

/** The scheme a client used, as the edge states it: https or http, nothing else. */
function statedScheme (request: Pick<FastifyRequest, 'protocol'>): 'https' | 'http' {
  return String(request.protocol).toLowerCase() === 'https' ? 'https' : 'http'
}

/**
 * reply-from's `rewriteRequestHeaders` for one backend: the `allowlist`'s
 * headers as the client sent them, reply-from's `Host` (the backend's), and
 * what the edge states itself: the request id, with `forwarding` the
 * normalised client address, the scheme and the host (from ALLOWED_HOSTS,
 * see server/edge/http/host-header.ts), and this backend's `upstreamHeaders` (the embedded
 * services' secret, server/shared/embedded-secret.ts). `prefix` is where the
 * proxy's routes are mounted.
 */
export function forwardRequestHeaders (
  allowlist: RequestHeaderAllowlist,
  options: { prefix: string, trust: ProxyTrust | null, upstreamHeaders?: Readonly<Record<string, string>> }
): NonNullable<ReplyOptions['rewriteRequestHeaders']> {
  const onlyOn = Object.entries(allowlist.onlyOn)
  const cookiesOnlyOn = Object.entries(allowlist.cookiesOnlyOn ?? {})
  return (request, headers) => {
    const route = (request.routeOptions.url ?? '').slice(options.prefix.length + 1)
    const sendsBody = request.body !== undefined
    const forwarded: IncomingHttpHeaders = { host: headers.host }
    for (const [name, value] of Object.entries(headers)) {
      if (allowlist.headers.has(name) && (sendsBody || !BODY_HEADERS.has(name))) forwarded[name] = value
    }
    for (const [name, routes] of onlyOn) {
      if (headers[name] !== undefined && routes.has(route)) forwarded[name] = headers[name]
    }
    const cookieNames = cookiesOnlyOn.length === 0
      ? allowlist.cookies
      : new Set([...allowlist.cookies, ...cookiesOnlyOn.filter(([, routes]) => routes.has(route)).map(([name]) => name)])
    const cookies = cookieNames.size === 0 || headers.cookie === undefined ? undefined : keepCookies(headers.cookie, cookieNames)
    if (cookies !== undefined) forwarded.cookie = cookies
    if (allowlist.forwarding) {
      const address = clientAddress(request)
      if (address !== null) forwarded['x-forwarded-for'] = address
      forwarded['x-forwarded-proto'] = statedScheme(request)
      // The edge listens over HTTP/1.1 only.
      const host = forwardedHost(request.raw as IncomingMessage, options.trust)
      if (host !== undefined) forwarded['x-forwarded-host'] = host
    }
    Object.assign(forwarded, allowlist.stated)
    if (allowlist.statesLocale === true) forwarded['accept-language'] = request.server.messagesFor(request as FastifyRequest).locale
    forwarded[REQUEST_ID_HEADER] = request.id
    Object.assign(forwarded, options.upstreamHeaders)
    return forwarded
  }
}

/**
 * Keeps only the response headers in `allowed`: a backend cannot weaken the
 * edge's security headers, make an answer cacheable or announce its software.
 */
function keepResponseHeaders (allowed: ReadonlySet<string>) {
  return function rewriteResponseHeaders (headers: IncomingHttpHeaders): IncomingHttpHeaders {
    const kept: IncomingHttpHeaders = {}
    for (const [name, value] of Object.entries(headers)) {
      if (allowed.has(name.toLowerCase())) kept[name] = value
    }
    return kept
  }
}

/**
 * Why a call to a backend failed, as far as the visitor needs to know:
 * `unreadable` is a backend that was reached and answered, but with
 * something the page cannot read (json-answers.ts); `bad-gateway` one that
 * could not be reached or did not speak HTTP.
 */
export type UpstreamFailure = 'timeout' | 'unavailable' | 'bad-gateway' | 'unreadable'

export function classifyUpstreamError (error: unknown): UpstreamFailure {
  const codes = errorCodes(error)
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return 'timeout'
  if (codes.some((code) => REFUSED_CODES.has(code))) return 'unavailable'
  if (codes.some((code) => UNREADABLE_CODES.has(code))) return 'unreadable'
  return 'bad-gateway'
}

export const UPSTREAM_FAILURE_STATUS: Readonly<Record<UpstreamFailure, number>> = {
  timeout: 504,
  unavailable: 503,
  'bad-gateway': 502,
  unreadable: 502
}

/**
 * Logs a backend failure in full (for operators: its kind, the elapsed time
 * and the error) and returns its class; what reaches the visitor is chosen
 * by the caller and names no address or port.
 */
export function noteUpstreamFailure (reply: FastifyReply | ProxyReply, error: unknown, upstreamName: string): UpstreamFailure {
  const failure = classifyUpstreamError(error)
  logUpstreamFailure(reply.request, {
    upstream: upstreamName,
    kind: failureKindOf(error),
    elapsedMs: upstreamElapsedMs(reply.request, reply.elapsedTime),
    failure
  }, error)
  return failure
}

/**
 * reply-from options shared by the proxies: header hygiene both ways, the
 * query string dropped unless `keepQuery`, and failures answered by
 * `onFailure` instead of the library's default (which would put the
 * backend's address in the message).
 */
export function upstreamReplyOptions (options: {
  readonly requestHeaders: NonNullable<ReplyOptions['rewriteRequestHeaders']>
  readonly keepQuery?: boolean
  readonly allowedResponseHeaders: ReadonlySet<string>
  readonly upstreamName: string
  readonly onFailure: (reply: ProxyReply, failure: UpstreamFailure) => void
}): ReplyOptions {
  return {
    rewriteRequestHeaders: options.requestHeaders,
    ...(options.keepQuery === true ? {} : { queryString: () => '' }),
    rewriteHeaders: keepResponseHeaders(options.allowedResponseHeaders),
    onError: (reply, { error }) => options.onFailure(reply, noteUpstreamFailure(reply, error, options.upstreamName))
  }
}
