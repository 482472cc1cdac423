import { bindingCookie } from '../http/binding-cookie.js'

/**
 * The SSO state cookie ties one sign-in to the browser that started it. It
 * holds a random binding; the store keeps only its hash. Lax is what lets it
 * ride along on the identity provider's redirect back (a top-level GET), and
 * what keeps it off the SAML provider's cross-site form POST.
 */

export const SSO_STATE_COOKIE = 'sso_state'
/** How long a started sign-in may take, the cookie's lifetime too. */
export const SSO_STATE_TTL_MS = 10 * 60 * 1000

const cookie = bindingCookie(SSO_STATE_COOKIE, SSO_STATE_TTL_MS, 'Lax')

export { bindingHash, bindingMatches, newBinding } from '../http/binding-cookie.js'
/** The Set-Cookie value that stores `binding` for the rest of the sign-in. */
export const stateCookie = cookie.set
/** The Set-Cookie value that removes the cookie once the sign-in is over. */
export const clearedStateCookie = cookie.cleared
/** The binding from a Cookie header, or null when absent or malformed. */
export const readBinding = cookie.read
