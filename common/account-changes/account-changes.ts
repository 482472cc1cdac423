/**
 * The refusals of a change to an account's ways in (docs/account-changes.md),
 * by `reason`, as the page and a product's own code read them.
 */

/** The auth token's session was ended (logout, "this wasn't me", a reset, the operator): sign in again. */
export const SESSION_ENDED_REASON = 'session_ended'

/** No proof of the account from this browser within the last few minutes: give one (`proof_methods`) and retry. */
export const FRESH_PROOF_REQUIRED_REASON = 'fresh_proof_required'

/** No auth token, or one that is not this service's or has expired. */
export const SIGNED_OUT_REASON = 'signed_out'

/**
 * How the owner can prove the account again, as strongly as a sign-in:
 * `password` (an account without a second factor), `password+code` (the
 * password with an authenticator or recovery code, in one call), `code`
 * (an account with a second factor and no password), `passkey`, and always
 * `sign_in` (a new sign-in in this browser is a proof too).
 */
export type ProofChoice = 'password' | 'password+code' | 'code' | 'passkey' | 'sign_in'
