/**
 * The token cookies as CONTRACT.md fixes them: their names, lifetime and
 * attributes. The edge sets them in Set-Cookie, HttpOnly where no script is
 * to read them (server/edge/sessions/set-cookie-headers.ts); the page
 * writes the readable `auth` cookie with js-cookie (client/sessions/session-cookies.ts).
 */

export const AUTH_COOKIE = 'auth'
export const REFRESH_COOKIE = 'refresh'

/** Lifetime of the auth and refresh cookies, in days (CONTRACT.md). */
const TOKEN_COOKIE_LIFETIME_DAYS = 14

export interface SessionCookieAttributes {
  readonly expires: number
  /** True but on a loopback page over plain http, where WebKit would keep no Secure cookie (docs/security.md, "Plain http on loopback"). */
  readonly secure: boolean
  readonly sameSite: 'Lax'
  readonly path: '/'
  readonly domain?: string
}

/**
 * The attributes CONTRACT.md fixes for the token cookies, on the domain the
 * edge decided for this host (null: host-only); `secure` false only for a
 * loopback page over plain http (common/http/hosts.ts isLoopbackHttpOrigin).
 */
export function sessionCookieAttributes (cookieDomain: string | null, secure = true): SessionCookieAttributes {
  return {
    expires: TOKEN_COOKIE_LIFETIME_DAYS,
    secure,
    sameSite: 'Lax',
    path: '/',
    ...(cookieDomain === null ? {} : { domain: cookieDomain })
  }
}
