import { AUTH_COOKIE, REFRESH_COOKIE, sessionCookieAttributes } from '../../../common/session-cookies.js'

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * A cookie value encoded as js-cookie writes it (the page sets these cookies
 * with js-cookie, and the product's pages may read them with it): percent-
 * encoded, but for the characters a cookie value may hold as they are.
 */
function cookieValue (value: string): string {
  return encodeURIComponent(value).replace(/%(2[346BF]|3[AC-F]|40|5[BDE]|60|7[BCD])/g, decodeURIComponent)
}

/**
 * The Set-Cookie values of the `auth` and `refresh` cookies after a login
 * posted without scripts: the attributes the page gives them
 * (common/session-cookies.ts: Expires 14 days on, Path=/, the host's cookie
 * domain, Secure, SameSite=Lax). Not HttpOnly, as the page's are not: the
 * product's own pages read them. Where the page reads its cookies back and
 * falls back to host-only ones, a Set-Cookie cannot: the edge's cookie
 * domain is one it decided from the Public Suffix List, which browsers share.
 */
export function sessionCookies (tokens: { readonly auth: string, readonly refresh: string }, cookieDomain: string | null, now = Date.now()): string[] {
  const attributes = sessionCookieAttributes(cookieDomain)
  const expires = new Date(now + attributes.expires * DAY_MS).toUTCString()
  const suffix = [
    `Expires=${expires}`,
    `Path=${attributes.path}`,
    ...(attributes.domain === undefined ? [] : [`Domain=${attributes.domain}`]),
    'Secure',
    `SameSite=${attributes.sameSite}`
  ].join('; ')
  return [`${AUTH_COOKIE}=${cookieValue(tokens.auth)}; ${suffix}`, `${REFRESH_COOKIE}=${cookieValue(tokens.refresh)}; ${suffix}`]
}
