import Cookies from 'js-cookie'
import { AUTH_COOKIE, REFRESH_COOKIE, sessionCookieAttributes } from '../../common/sessions/session-cookies.js'

/** An auth token's claims the signed-in state shows or needs: read, never verified (the product verifies the token). */
interface ShownClaims {
  readonly email: string
  /** When the token expires, in seconds since the epoch. */
  readonly exp: number
}

/** The email and expiry in a JWT's payload, or null when it is not one that has them. */
export function shownClaims (token: string): ShownClaims | null {
  const payload = token.split('.')[1]
  if (payload === undefined) return null
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '=')
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(base64), (character) => character.charCodeAt(0)))) as Record<string, unknown>
    return typeof claims.email === 'string' && claims.email.includes('@') && typeof claims.exp === 'number' ? { email: claims.email, exp: claims.exp } : null
  } catch {
    return null
  }
}

/** The `auth` cookie's claims, expired or not; null when there is none or it names no one. */
export function authCookieClaims (): ShownClaims | null {
  const token = Cookies.get(AUTH_COOKIE)
  return token === undefined ? null : shownClaims(token)
}

/**
 * Removes the token cookies the page can reach, on the cookie domain and on
 * this host alone (the page falls back to host-only when a browser refuses
 * the domain: client/sessions/session-cookies.ts): after `token/revoke`, whose
 * answer removes them at the edge too, or where that call is not proxied.
 */
export function clearTokenCookies (cookieDomain: string | null): void {
  const { domain } = sessionCookieAttributes(cookieDomain)
  for (const name of [AUTH_COOKIE, REFRESH_COOKIE]) {
    if (domain !== undefined) Cookies.remove(name, { path: '/', domain })
    Cookies.remove(name, { path: '/' })
  }
}
