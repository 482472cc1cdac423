import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { readList, readOrigin, type Env } from '../../shared/env-parsing.js'
import { HttpError } from './http-error.js'
import { fromTrustedProxy, type ProxyTrust } from './trusted-proxy.js'

/**
 * A host as a Host header names it: a DNS name (labels of at most 63
 * characters; underscores allowed, as container names have them) or an IPv4
 * address, or an IPv6 address in brackets, with an optional port. Nothing a
 * URL could read as a path, credentials or a second host.
 */
const HOST = /^(?:[A-Za-z0-9_-]{1,63}(?:\.[A-Za-z0-9_-]{1,63})*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::([0-9]{1,5}))?$/

/** A DNS name is at most 253 characters (RFC 1035), plus a final dot, a colon and a five-digit port. */
const MAX_HOST_LENGTH = 253 + 1 + 1 + 5

const MAX_PORT = 65535

/** The host a request is for, split and in canonical form. */
export interface HostName {
  /** Lower case, without a final dot; an IPv6 address in brackets, in its shortest form. */
  readonly name: string
  /** The port as stated (digits), or null when the host names none. */
  readonly port: string | null
}

/** The canonical spelling of a host name (see {@link HostName}), or null when `name` is not one. */
export function canonicalHostName (name: string): string | null {
  const parsed = parseHost(name.startsWith('[') || !name.includes(':') ? name : `[${name}]`)
  return parsed === null || parsed.port !== null ? null : parsed.name
}

/** A Host header value (or X-Forwarded-Host entry) split into name and port; null when it is not valid. */
export function parseHost (value: string): HostName | null {
  if (value.length > MAX_HOST_LENGTH) return null
  const match = HOST.exec(value)
  if (match === null) return null
  const port = match[1] ?? null
  if (port !== null && Number(port) > MAX_PORT) return null
  const raw = port === null ? value : value.slice(0, -(port.length + 1))
  let name = raw.toLowerCase()
  if (name.startsWith('[')) {
    try {
      name = new URL(`http://${name}/`).hostname
    } catch {
      return null
    }
  } else if (name.endsWith('.')) {
    name = name.slice(0, -1)
  }
  return { name, port }
}

/**
 * The request's Host header, parsed: undefined when there is none and none is
 * needed (HTTP/1.0), null when it is invalid. RFC 9112 ("Request Target") has a server
 * answer 400 to a request with no Host header, several, or an invalid one;
 * the edge also passes the host on to the backends as X-Forwarded-Host,
 * where a backend may build links from it.
 */
function readHostHeader (request: IncomingMessage): HostName | null | undefined {
  const host = request.headers.host
  if (host === undefined) return request.httpVersion === '1.0' ? undefined : null
  const parsed = parseHost(host)
  if (parsed === null) return null
  // Node keeps the first of several Host headers: count them in the raw list.
  const raw = request.rawHeaders
  let seen = 0
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!
    if (name.length === 4 && name.toLowerCase() === 'host' && ++seen > 1) return null
  }
  return parsed
}

/** X-Forwarded-Host's last entry (the trusted proxy's own) when the connection comes from a trusted proxy. */
function trustedForwardedHost (request: IncomingMessage, trust: ProxyTrust | null): string | undefined {
  const forwarded = request.headers['x-forwarded-host']
  if (typeof forwarded !== 'string' || forwarded === '' || !fromTrustedProxy(trust, request)) return undefined
  const comma = forwarded.lastIndexOf(',')
  return (comma === -1 ? forwarded : forwarded.slice(comma + 1)).trim()
}

/**
 * The host a request is for, as the edge states it: the last entry of
 * X-Forwarded-Host when the connection comes from a trusted proxy (as
 * Fastify's `request.host` reads it), else the Host header; undefined when
 * neither names one (HTTP/1.0).
 */
function statedHost (request: IncomingMessage, trust: ProxyTrust | null): string | undefined {
  return trustedForwardedHost(request, trust) ?? request.headers.host
}

/**
 * The name of the host a request is for, as the edge states it (see
 * {@link statedHost}), in canonical form and without its port; '' when the
 * request names none or an invalid one. The page's cookie domain and the
 * local-accounts rule follow it, so that behind a trusted proxy they follow
 * the host the visitor asked for, not the proxy's internal name.
 */
export function statedHostName (request: IncomingMessage, trust: ProxyTrust | null): string {
  const stated = statedHost(request, trust)
  return stated === undefined ? '' : parseHost(stated)?.name ?? ''
}

/** The host names the edge answers for (ALLOWED_HOSTS), or null for any host. */
export type AllowedHosts = ReadonlySet<string> | null

/** What the edge makes of the host a request names. */
export type HostVerdict = 'served' | 'invalid' | 'foreign'

/**
 * Whether the edge serves a request's host: `invalid` when the Host header
 * is missing, repeated or malformed, or the stated host malformed (400);
 * `foreign` when the stated host is not in ALLOWED_HOSTS (421); a request
 * that names no host (HTTP/1.0) claims no foreign one and is served.
 */
export function judgeHost (request: IncomingMessage, allowed: AllowedHosts, trust: ProxyTrust | null): HostVerdict {
  const header = readHostHeader(request)
  if (header === null) return 'invalid'
  const forwarded = trustedForwardedHost(request, trust)
  const host = forwarded === undefined ? header : parseHost(forwarded)
  if (host === undefined) return 'served'
  if (host === null) return 'invalid'
  return allowed === null || allowed.has(host.name) ? 'served' : 'foreign'
}

/**
 * The X-Forwarded-Host the edge sends a backend: the stated host's name in
 * its canonical form (with ALLOWED_HOSTS, the list's own entry, since only a
 * listed name gets this far) and its port; undefined when the request names
 * no host. Never the visitor's bytes as sent.
 */
export function forwardedHost (request: IncomingMessage, trust: ProxyTrust | null): string | undefined {
  const stated = statedHost(request, trust)
  const host = stated === undefined ? null : parseHost(stated)
  if (host === null) return undefined
  return host.port === null ? host.name : `${host.name}:${host.port}`
}

/**
 * An onRequest hook that refuses, before any route runs, a request whose host
 * is not valid (400, as sent and as the edge will state it to the backends)
 * or not one the edge serves (421 Misdirected Request: RFC 9110's
 * answer for a request sent to a server that will not answer for its host).
 * Neither answer repeats the host.
 */
export function checkHost (options: {
  readonly allowed: AllowedHosts
  readonly trust: ProxyTrust | null
  /** Routes that answer whatever the host (the health probes, which balancers call by address). */
  readonly exempt: ReadonlySet<string>
}) {
  const { allowed, trust, exempt } = options
  return function rejectUnservedHost (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const verdict = judgeHost(request.raw, exempt.has(request.routeOptions.url ?? '') ? null : allowed, trust)
    if (verdict === 'invalid') done(new HttpError(400, 'server.hostInvalid'))
    else if (verdict === 'foreign') done(new HttpError(421, 'server.hostForeign'))
    else done()
  }
}

/**
 * ALLOWED_HOSTS, port-free names or addresses; without it, PUBLIC_URL's host
 * (the page's one public origin, which the reference service reads too).
 */
export function readAllowedHosts (env: Env): readonly string[] | null {
  const listed = readList(env, 'ALLOWED_HOSTS', (item) => canonicalHostName(item) !== null,
    'host names or IP addresses, without a port')
  if (listed.length > 0) return [...new Set(listed.map((item) => canonicalHostName(item)!))]
  const publicUrl = readOrigin(env, 'PUBLIC_URL')
  return publicUrl === undefined ? null : [canonicalHostName(publicUrl.hostname)!]
}
