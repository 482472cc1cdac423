import Cookies from 'js-cookie'
import { TOKEN_COOKIE_LIFETIME_DAYS } from './constants.js'
import { cookieDomainFor } from '../../common/hosts.js'

export const AUTH_COOKIE = 'auth'
export const REFRESH_COOKIE = 'refresh'

export interface SessionCookieAttributes {
  readonly expires: number
  readonly secure: true
  readonly sameSite: 'Lax'
  readonly path: '/'
  readonly domain?: string
}

/** The attributes CONTRACT.md fixes for the token cookies on this page's host. */
export function sessionCookieAttributes (pageHostname: string, configuredDomain: string | null): SessionCookieAttributes {
  const domain = cookieDomainFor(pageHostname, configuredDomain)
  return {
    expires: TOKEN_COOKIE_LIFETIME_DAYS,
    secure: true,
    sameSite: 'Lax',
    path: '/',
    ...(domain === null ? {} : { domain })
  }
}

/**
 * Stores the tokens in the `auth` and `refresh` cookies. If the browser
 * refuses the parent domain (it is a public suffix, such as co.uk for
 * example.co.uk), the cookies are set for this host instead of silently lost.
 */
export function storeSessionTokens (tokens: { auth: string, refresh: string }, pageHostname: string, configuredDomain: string | null): void {
  const attributes = sessionCookieAttributes(pageHostname, configuredDomain)
  Cookies.set(AUTH_COOKIE, tokens.auth, attributes)
  Cookies.set(REFRESH_COOKIE, tokens.refresh, attributes)
  if (Cookies.get(AUTH_COOKIE) !== tokens.auth && attributes.domain !== undefined) {
    const { domain: _refused, ...hostOnly } = attributes
    Cookies.set(AUTH_COOKIE, tokens.auth, hostOnly)
    Cookies.set(REFRESH_COOKIE, tokens.refresh, hostOnly)
  }
}
