import Cookies from 'js-cookie'
// Kept in common/ since the edge sets the same cookies (server/edge/sessions/set-cookie-headers.ts).
import {
  AUTH_COOKIE, REFRESH_COOKIE, sessionCookieAttributes, type SessionCookieAttributes
} from '../../common/sessions/session-cookies.js'
import { isLoopbackHttpOrigin } from '../../common/http/hosts.js'

/** The token cookies the page writes itself: `auth`, and `refresh` only where no edge saw the answer (local-network mode). */
export interface PageWrittenTokens {
  readonly auth: string
  readonly refresh?: string
}

function write (tokens: PageWrittenTokens, attributes: SessionCookieAttributes): boolean {
  Cookies.set(AUTH_COOKIE, tokens.auth, attributes)
  if (tokens.refresh !== undefined) Cookies.set(REFRESH_COOKIE, tokens.refresh, attributes)
  return Cookies.get(AUTH_COOKIE) === tokens.auth && (tokens.refresh === undefined || Cookies.get(REFRESH_COOKIE) === tokens.refresh)
}

/**
 * Writes the token cookies the page is to write and reads them back: a
 * browser drops a cookie silently (over 4096 bytes, a domain it refuses,
 * cookies blocked). Refused on the cookie domain (the browser's suffix list
 * may differ from the edge's), they are set for this host instead. False
 * when the browser kept none: the visitor is not signed in.
 *
 * The `refresh` cookie is the edge's, HttpOnly, set with the answer that
 * carried the token (docs/security.md, "The token cookies"); the page
 * writes one only in local-network mode, whose answers no edge sees.
 * On a loopback page over plain http (`page`, the page's location) they
 * go without Secure, which WebKit would not keep there, as the edge's do.
 */
export function storeSessionTokens (tokens: PageWrittenTokens, cookieDomain: string | null, page: Pick<Location, 'protocol' | 'hostname'> = location): boolean {
  const attributes = sessionCookieAttributes(cookieDomain, !isLoopbackHttpOrigin(page.protocol, page.hostname))
  if (write(tokens, attributes)) return true
  const { domain: _refused, ...hostOnly } = attributes
  return cookieDomain !== null && write(tokens, hostOnly)
}
