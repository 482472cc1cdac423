import { AUTH_COOKIE, REFRESH_COOKIE, sessionCookieAttributes } from '../../../common/sessions/session-cookies.js'

const DAY_MS = 24 * 60 * 60 * 1000

/** The token cookies by name, as the edge sets them. */
type TokenCookieName = typeof AUTH_COOKIE | typeof REFRESH_COOKIE

/**
 * A cookie value encoded as js-cookie writes it (the page writes the
 * readable `auth` cookie with js-cookie, and the product's pages may read it
 * with it): percent-encoded, but for the characters a cookie value may hold
 * as they are.
 */
function cookieValue (value: string): string {
  return encodeURIComponent(value).replace(/%(2[346BF]|3[AC-F]|40|5[BDE]|60|7[BCD])/g, decodeURIComponent)
}

/** The attributes after the value: the page's (common/sessions/session-cookies.ts), and HttpOnly where asked. */
function attributesOf (cookieDomain: string | null, httpOnly: boolean, lifetime: string): string {
  const attributes = sessionCookieAttributes(cookieDomain)
  return [
    lifetime,
    `Path=${attributes.path}`,
    ...(attributes.domain === undefined ? [] : [`Domain=${attributes.domain}`]),
    'Secure',
    ...(httpOnly ? ['HttpOnly'] : []),
    `SameSite=${attributes.sameSite}`
  ].join('; ')
}

/**
 * The Set-Cookie value of one token cookie: the attributes the page gives
 * its own (common/sessions/session-cookies.ts: Expires 14 days on, Path=/, the host's
 * cookie domain, Secure, SameSite=Lax), and HttpOnly where no script is to
 * read it (docs/security.md, "The token cookies"). Where the page reads its
 * cookies back and falls back to host-only ones, a Set-Cookie cannot: the
 * edge's cookie domain is one it decided from the Public Suffix List, which
 * browsers share.
 */
function tokenCookie (name: TokenCookieName, value: string, cookieDomain: string | null, httpOnly: boolean, now = Date.now()): string {
  const expires = new Date(now + sessionCookieAttributes(cookieDomain).expires * DAY_MS).toUTCString()
  return `${name}=${cookieValue(value)}; ${attributesOf(cookieDomain, httpOnly, `Expires=${expires}`)}`
}

/** The Set-Cookie value that removes a token cookie: the same name, Domain and Path, and Max-Age=0. */
function clearedTokenCookie (name: TokenCookieName, cookieDomain: string | null, httpOnly: boolean): string {
  return `${name}=; ${attributesOf(cookieDomain, httpOnly, 'Max-Age=0')}`
}

/**
 * The token cookies the edge itself sets on an answer carrying tokens: the
 * `refresh` cookie, HttpOnly, always; the `auth` cookie, HttpOnly, only with
 * AUTH_COOKIE_HTTPONLY=true (`authHttpOnly`). Otherwise the page writes
 * `auth` itself, readable by the product's scripts as the specification asks.
 */
export function edgeTokenCookies (tokens: { readonly auth: string, readonly refresh: string }, cookieDomain: string | null, authHttpOnly: boolean, now = Date.now()): string[] {
  return [
    ...(authHttpOnly ? [tokenCookie(AUTH_COOKIE, tokens.auth, cookieDomain, true, now)] : []),
    tokenCookie(REFRESH_COOKIE, tokens.refresh, cookieDomain, true, now)
  ]
}

/**
 * The token cookie the page's scripts would write after a sign-in, for the
 * forms posted without scripts: the readable `auth` cookie, unless
 * AUTH_COOKIE_HTTPONLY=true (`authHttpOnly`), when the edge has set it with
 * the answer already (edgeTokenCookies), as it always sets `refresh`.
 */
export function pageTokenCookies (tokens: { readonly auth: string }, cookieDomain: string | null, authHttpOnly: boolean, now = Date.now()): string[] {
  return authHttpOnly ? [] : [tokenCookie(AUTH_COOKIE, tokens.auth, cookieDomain, false, now)]
}

/**
 * The Set-Cookie values that remove both token cookies once their session
 * has ended (`token/revoke`): `refresh` as the edge set it, and `auth`
 * whoever wrote it (the same name, Domain and Path remove it either way).
 */
export function clearedTokenCookies (cookieDomain: string | null, authHttpOnly: boolean): string[] {
  return [clearedTokenCookie(AUTH_COOKIE, cookieDomain, authHttpOnly), clearedTokenCookie(REFRESH_COOKIE, cookieDomain, true)]
}
