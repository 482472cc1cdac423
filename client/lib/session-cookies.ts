import Cookies from 'js-cookie'
// Kept in common/ since the edge sets the same cookies after a login posted without scripts.
import {
  AUTH_COOKIE, REFRESH_COOKIE, sessionCookieAttributes, type SessionCookieAttributes
} from '../../common/session-cookies.js'

function write (tokens: { auth: string, refresh: string }, attributes: SessionCookieAttributes): boolean {
  Cookies.set(AUTH_COOKIE, tokens.auth, attributes)
  Cookies.set(REFRESH_COOKIE, tokens.refresh, attributes)
  return Cookies.get(AUTH_COOKIE) === tokens.auth && Cookies.get(REFRESH_COOKIE) === tokens.refresh
}

/**
 * Stores the tokens in the `auth` and `refresh` cookies and reads them back:
 * a browser drops a cookie silently (over 4096 bytes, a domain it refuses,
 * cookies blocked). Refused on the cookie domain (the browser's suffix list
 * may differ from the edge's), they are set for this host instead. False when
 * the browser kept neither: the visitor is not signed in.
 */
export function storeSessionTokens (tokens: { auth: string, refresh: string }, cookieDomain: string | null): boolean {
  const attributes = sessionCookieAttributes(cookieDomain)
  if (write(tokens, attributes)) return true
  const { domain: _refused, ...hostOnly } = attributes
  return cookieDomain !== null && write(tokens, hostOnly)
}
