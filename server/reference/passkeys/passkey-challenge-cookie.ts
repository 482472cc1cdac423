import { bindingCookie, bindingHash, newBinding } from '../http/binding-cookie.js'

/**
 * The passkey_challenge cookie ties a WebAuthn challenge to the browser that
 * asked for it (docs/passkeys.md): it holds a random binding, the store keeps
 * only its hash beside the challenge. Strict, as every passkey call is a
 * same-origin fetch from the page; the edge passes it on the passkey calls only.
 */

const PASSKEY_CHALLENGE_COOKIE = 'passkey_challenge'
/** How long a challenge may be answered: the cookie's lifetime and the options' timeout too. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000

const cookie = bindingCookie(PASSKEY_CHALLENGE_COOKIE, PASSKEY_CHALLENGE_TTL_MS, 'Strict')

export const newChallengeBinding = newBinding
export const challengeBindingHash = bindingHash
/** The Set-Cookie value that stores `binding` for the ceremony. */
export const challengeCookie = cookie.set
/** The Set-Cookie value that removes the cookie once its challenge is spent. */
export const clearedChallengeCookie = cookie.cleared
/** The binding from a Cookie header, or null when absent or malformed. */
export const readChallengeBinding = cookie.read
