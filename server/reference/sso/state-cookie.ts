import { timingSafeEqual } from 'node:crypto'
import { cookieValue } from '../cookie-header.js'
import { ACCOUNTS_PATH } from '../exposed-routes.js'
import { hashToken, newOpaqueToken } from '../tokens.js'

/**
 * The SSO state cookie ties one sign-in to the browser that started it. It
 * holds a random binding; the store keeps only its hash. Lax is what lets it
 * ride along on the identity provider's redirect back (a top-level GET), and
 * what keeps it off the SAML provider's cross-site form POST.
 */

export const SSO_STATE_COOKIE = 'sso_state'
/** How long a started sign-in may take, the cookie's lifetime too. */
export const SSO_STATE_TTL_MS = 10 * 60 * 1000

const BINDING_FORMAT = /^[\w-]{43}$/

export function newBinding (): string {
  return newOpaqueToken()
}

export function bindingHash (binding: string): string {
  return hashToken(binding)
}

/** Whether `binding` hashes to `expectedHash`, compared in constant time. */
export function bindingMatches (binding: string | null, expectedHash: string): boolean {
  if (binding === null) return false
  const actual = Buffer.from(bindingHash(binding))
  const expected = Buffer.from(expectedHash)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/** The Set-Cookie value that stores `binding` for the rest of the sign-in. */
export function stateCookie (binding: string): string {
  return `${SSO_STATE_COOKIE}=${binding}; Max-Age=${SSO_STATE_TTL_MS / 1000}; Path=${ACCOUNTS_PATH}; HttpOnly; Secure; SameSite=Lax`
}

/** The Set-Cookie value that removes the cookie once the sign-in is over. */
export function clearedStateCookie (): string {
  return `${SSO_STATE_COOKIE}=; Max-Age=0; Path=${ACCOUNTS_PATH}; HttpOnly; Secure; SameSite=Lax`
}

/** The binding from a Cookie header, or null when absent or malformed. */
export function readBinding (cookieHeader: string | undefined): string | null {
  const value = cookieValue(cookieHeader, SSO_STATE_COOKIE)
  return value !== undefined && BINDING_FORMAT.test(value) ? value : null
}
