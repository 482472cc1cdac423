import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isLoopbackHost, isLoopbackHttpOrigin } from '../../../common/http/hosts.js'
import { statedHostName } from './host-header.js'
import { fromTrustedProxy, type ProxyTrust } from './trusted-proxy.js'

/**
 * WebKit (Safari's engine) keeps no `Secure` cookie set over plain http, not
 * even on localhost, where the other engines do: on `http://localhost` no
 * one could sign in. So on a loopback page over plain http, and only there,
 * the edge sends every cookie without `Secure`, and a `__Host-` cookie
 * (which requires it) under its name without the prefix. docs/security.md,
 * "Plain http on loopback", says why this cannot reach a public deployment.
 */

/** The scheme the visitor used as the edge sees it: a trusted proxy's last X-Forwarded-Proto entry, else the socket's (as Fastify's `request.protocol`). */
function statedScheme (request: IncomingMessage, trust: ProxyTrust | null): string {
  const forwarded = request.headers['x-forwarded-proto']
  if (typeof forwarded === 'string' && forwarded !== '' && fromTrustedProxy(trust, request)) {
    return forwarded.slice(forwarded.lastIndexOf(',') + 1).trim().toLowerCase()
  }
  return (request.socket as { encrypted?: boolean } | null)?.encrypted === true ? 'https' : 'http'
}

/** Whether `origin` (a browser's Origin header) is a loopback origin over http. */
function isLoopbackHttpOriginHeader (origin: string): boolean {
  try {
    const url = new URL(origin)
    return isLoopbackHttpOrigin(url.protocol, url.hostname)
  } catch {
    return false
  }
}

/**
 * Whether `request` is for a loopback page over plain http. All of:
 * - PUBLIC_URL (`publicOrigin`), when set, is itself a loopback http origin;
 * - the scheme, as the edge sees it, is http; and a proxy the edge does not
 *   trust has not said otherwise (an untrusted `X-Forwarded-Proto` or
 *   `Forwarded` is a proxy in front, which may have ended TLS: kept Secure);
 * - the host, as the edge sees it (the Host header, already held to
 *   ALLOWED_HOSTS, or a trusted proxy's X-Forwarded-Host), is loopback;
 * - the browser's `Origin`, when it sends one (every POST), is a loopback
 *   http origin too: a proxy that ends TLS and calls the edge on
 *   `http://127.0.0.1` without saying so still leaves the visitor's
 *   https Origin, and the cookies keep `Secure`.
 */
export function isLoopbackHttpRequest (request: IncomingMessage, trust: ProxyTrust | null, publicOrigin: string | null): boolean {
  if (publicOrigin !== null && !isLoopbackHttpOriginHeader(publicOrigin)) return false
  if (statedScheme(request, trust) !== 'http') return false
  if (!fromTrustedProxy(trust, request) && (request.headers['x-forwarded-proto'] !== undefined || request.headers.forwarded !== undefined)) return false
  if (!isLoopbackHost(statedHostName(request, trust))) return false
  const origin = request.headers.origin
  return origin === undefined || isLoopbackHttpOriginHeader(origin)
}

/** The name prefixes that require Secure (browsers match them in any case). */
const SECURE_PREFIX = /^__(?:host|secure)-/i
const SECURE_ATTRIBUTE = /;\s*secure\s*(?=;|$)/gi

/** One Set-Cookie value as a loopback http page gets it: without `Secure`, and a `__Host-` or `__Secure-` name without its prefix. */
export function loopbackHttpCookie (setCookie: string): string {
  return setCookie.replace(SECURE_PREFIX, '').replace(SECURE_ATTRIBUTE, '')
}

function rewritten (value: number | string | readonly string[]): number | string | string[] {
  if (typeof value === 'number') return value
  return typeof value === 'string' ? loopbackHttpCookie(value) : value.map(loopbackHttpCookie)
}

/**
 * Makes `response` send every cookie as {@link loopbackHttpCookie} has it,
 * whoever sets it and however (setHeader, or writeHead's headers, which
 * Node's implicit header goes through too): the edge's own cookies, those
 * of Fastify hooks that run after any hook of ours could, and the accounts
 * service's, passed on by the proxy.
 */
function dropSecureCookiesOn (response: ServerResponse): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse
  response.writeHead = ((...args: unknown[]) => {
    const set = response.getHeader('set-cookie')
    if (set !== undefined) response.setHeader('set-cookie', rewritten(set))
    const headers = args.at(-1)
    if (Array.isArray(headers)) {
      for (let index = 0; index + 1 < headers.length; index += 2) {
        if (String(headers[index]).toLowerCase() === 'set-cookie') headers[index + 1] = rewritten(headers[index + 1] as string | string[])
      }
    } else if (headers !== null && typeof headers === 'object') {
      const record = headers as Record<string, number | string | string[] | undefined>
      for (const [name, value] of Object.entries(record)) {
        if (name.toLowerCase() === 'set-cookie' && value !== undefined) record[name] = rewritten(value)
      }
    }
    return writeHead(...args)
  })
}

/**
 * An `onRequest` hook for the whole edge: a loopback http request's answer
 * sends its cookies without `Secure` ({@link dropSecureCookiesOn}). `skip`
 * names the requests whose answer reaches no browser as it is (a form
 * post's inner call: its cookies are judged on the form post's own answer).
 */
export function loopbackHttpCookies (options: { readonly trust: ProxyTrust | null, readonly publicOrigin: string | null, readonly skip: (request: FastifyRequest) => boolean }) {
  const { trust, publicOrigin, skip } = options
  return function dropSecureOnLoopbackHttp (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (!skip(request) && isLoopbackHttpRequest(request.raw, trust, publicOrigin)) dropSecureCookiesOn(reply.raw)
    done()
  }
}
