import type { FastifyReply, FastifyRequest } from 'fastify'
import { UnreadableAnswerError } from '../../shared/content-codings.js'
import { REFRESH_COOKIE } from '../../../common/sessions/session-cookies.js'
import { cookieDomainFor } from './cookie-domain.js'
import { statedHostName } from '../http/host-header.js'
import { isBrowserRequest } from '../http/same-origin-guard.js'
import { answerShape } from '../metrics/sign-in-metrics.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'
import type { ProxyReply } from '../upstream/upstream.js'
import { clearedTokenCookies, edgeTokenCookies } from './set-cookie-headers.js'

/** The calls that take a refresh token: in the body, or else from the `refresh` cookie. */
const REFRESH_TOKEN_CALLS: ReadonlySet<string> = new Set(['token/refresh', 'token/revoke'])

/** The call that ends a session: once it succeeds for the cookie's token, the token cookies go. */
const REVOKE_CALL = 'token/revoke'

/**
 * The call that ends every session of the account, this browser's with it:
 * once it succeeds, the token cookies go too. The page cannot remove the
 * HttpOnly `refresh` cookie itself (client/account/DeleteSection.tsx).
 */
const DELETE_ACCOUNT_CALL = 'account/delete'

export interface TokenAnswerOptions {
  /** Where the proxy's routes are mounted (`/accounts`). */
  readonly prefix: string
  readonly trust: ProxyTrust | null
  /** COOKIE_DOMAIN; null: derived from the page's host (cookie-domain.ts). */
  readonly cookieDomain: string | null
  /** AUTH_COOKIE_HTTPONLY: the edge sets `auth` too, HttpOnly. */
  readonly authHttpOnly: boolean
}

/** The value of the first cookie called `name` in a Cookie header, decoded as js-cookie would; undefined when absent or empty. */
export function cookieOf (header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const separator = pair.indexOf('=')
    if (separator <= 0 || pair.slice(0, separator).trim() !== name) continue
    const raw = pair.slice(separator + 1).trim()
    try {
      return decodeURIComponent(raw) || undefined
    } catch {
      return raw || undefined
    }
  }
  return undefined
}

function jsonObjectOf (body: unknown): Record<string, unknown> | null {
  if (!Buffer.isBuffer(body)) return null
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null
  } catch {
    return null
  }
}

/**
 * The token cookies at the edge (docs/security.md, "The token cookies"): no
 * script in the browser sees the refresh token, neither in a cookie nor in
 * an answer, so an injected one cannot carry it off to use for 14 days.
 *
 * - `answerForBrowser` (server/edge/upstream/json-answers.ts, for each answer passed on): a 2xx
 *   answer carrying tokens (a login, a passkey sign-in, a second factor's
 *   code or enrolment, an SSO completion, a token refresh) gets the `refresh`
 *   cookie, HttpOnly (and the `auth` cookie, HttpOnly, with
 *   AUTH_COOKIE_HTTPONLY=true). No answer reaches a browser
 *   (isBrowserRequest) with `refresh` in its body, and a 2xx one with an
 *   `auth` token but no refresh token is unreadable, as the page's parser
 *   would have found it before (common/http/accounts-answers.ts tokensOf); a
 *   server or a tool, which no page script runs in, gets the answer as the
 *   accounts API gives it. `auth` stays: the page sends it as a bearer token
 *   right after the sign-in (a passkey, a second factor) and writes its
 *   cookie. A successful `token/revoke` of the cookie's token removes both
 *   cookies.
 * - `fillRefreshToken` (a preHandler): `token/refresh` and `token/revoke`
 *   naming no token are given the `refresh` cookie's in their body, which
 *   is where an own backend reads it (docs/accounts-api.openapi.yaml).
 */
export function tokenAnswers (options: TokenAnswerOptions) {
  /** The revocations of the cookie's own token, which end the browser's session. */
  const revokingCookie = new WeakSet<FastifyRequest>()
  const routeOf = (request: FastifyRequest): string => (request.routeOptions.url ?? '').slice(options.prefix.length + 1)
  const cookieDomainOf = (request: FastifyRequest): string | null => cookieDomainFor(statedHostName(request.raw, options.trust), options.cookieDomain)

  return {
    fillRefreshToken: async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
      const route = routeOf(request)
      if (!REFRESH_TOKEN_CALLS.has(route)) return
      const cookie = cookieOf(request.headers.cookie, REFRESH_COOKIE)
      const body = jsonObjectOf(request.body)
      if (cookie === undefined || body === null) return
      if (body.refresh === undefined) request.body = Buffer.from(JSON.stringify({ ...body, refresh: cookie }))
      else if (body.refresh !== cookie) return
      if (route === REVOKE_CALL) revokingCookie.add(request)
    },

    answerForBrowser: (request: FastifyRequest, reply: ProxyReply, status: number, answer: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
      const succeeded = status >= 200 && status <= 299
      if (succeeded && (revokingCookie.has(request) || routeOf(request) === DELETE_ACCOUNT_CALL)) void reply.header('set-cookie', clearedTokenCookies(cookieDomainOf(request), options.authHttpOnly))
      const shape = answerShape(answer)
      if (succeeded && shape === 'tokens') {
        void reply.header('set-cookie', edgeTokenCookies({ auth: answer.auth as string, refresh: answer.refresh as string }, cookieDomainOf(request), options.authHttpOnly))
      }
      if (!isBrowserRequest(request)) return answer
      // The page takes `auth` for a sign-in whose refresh token is in the cookie: never one without it.
      if (succeeded && shape === 'neither' && answer.auth !== undefined) throw new UnreadableAnswerError('an auth token without its refresh token')
      if (answer.refresh === undefined) return answer
      const { refresh: _inTheCookie, ...withoutRefresh } = answer
      return withoutRefresh
    }
  }
}
