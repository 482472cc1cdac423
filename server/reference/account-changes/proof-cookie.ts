import { bindingCookie } from '../http/binding-cookie.js'

/**
 * The threshold_proof cookie holds the browser's proof of its account
 * (docs/account-changes.md): a random binding whose hash the store keeps
 * beside the account and the time. HttpOnly, so that a script that reads the
 * `auth` cookie cannot read it; Strict, as every account change is a
 * same-origin fetch from the page.
 */
const PROOF_COOKIE = 'threshold_proof'

/** How long a proof lets its browser change the account's ways in: "within the last few minutes". */
export const FRESH_PROOF_WINDOW_MS = 5 * 60 * 1000

export const proofCookie = bindingCookie(PROOF_COOKIE, FRESH_PROOF_WINDOW_MS, 'Strict')
