import { cookieValue } from './cookie-header.js'
import { ACCOUNTS_PATH } from './exposed-routes.js'
import { hashToken, newOpaqueToken } from './tokens.js'

/**
 * The passkey_challenge cookie ties a WebAuthn challenge to the browser that
 * asked for it (docs/passkeys.md): it holds a random binding, the store keeps
 * only its hash beside the challenge. Strict, as every passkey call is a
 * same-origin fetch from the page; the edge passes it on the passkey calls only.
 */

export const PASSKEY_CHALLENGE_COOKIE = 'passkey_challenge'
/** How long a challenge may be answered: the cookie's lifetime and the options' timeout too. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000

const BINDING_FORMAT = /^[\w-]{43}$/

export function newChallengeBinding (): string {
  return newOpaqueToken()
}

export function challengeBindingHash (binding: string): string {
  return hashToken(binding)
}

/** The Set-Cookie value that stores `binding` for the ceremony. */
export function challengeCookie (binding: string): string {
  return `${PASSKEY_CHALLENGE_COOKIE}=${binding}; Max-Age=${PASSKEY_CHALLENGE_TTL_MS / 1000}; Path=${ACCOUNTS_PATH}; HttpOnly; Secure; SameSite=Strict`
}

/** The Set-Cookie value that removes the cookie once its challenge is spent. */
export function clearedChallengeCookie (): string {
  return `${PASSKEY_CHALLENGE_COOKIE}=; Max-Age=0; Path=${ACCOUNTS_PATH}; HttpOnly; Secure; SameSite=Strict`
}

/** The binding from a Cookie header, or null when absent or malformed. */
export function readChallengeBinding (cookieHeader: string | undefined): string | null {
  const value = cookieValue(cookieHeader, PASSKEY_CHALLENGE_COOKIE)
  return value !== undefined && BINDING_FORMAT.test(value) ? value : null
}
