import {
  FRESH_PROOF_REQUIRED_REASON, SESSION_ENDED_REASON, SIGNED_OUT_REASON, type ProofChoice
} from '../../common/account-changes/account-changes.js'
import { parseSuccessAnswer, type JsonAnswer, type Refusal } from '../../common/http/accounts-answers.js'

/**
 * The refusals of a change to how an account signs in (adding a passkey,
 * enrolling a second factor), and the answers of the calls that prove the
 * account again (docs/account-changes.md), parsed at the boundary as the
 * other calls' are (common/http/accounts-answers.ts).
 */

/** A way to prove the account again that the page offers in place (a new sign-in, `sign_in`, is always offered). */
export type ProofWay = Exclude<ProofChoice, 'sign_in'>

/**
 * The change needs a fresh proof first: the ways the service offers, in the
 * page's order. Of `password`, `password+code` and `code`, the service names
 * at most one: what a sign-in of the account asks for.
 */
interface ProofNeeded {
  readonly kind: 'proof-needed'
  readonly ways: readonly ProofWay[]
}

/** The session behind the auth token has ended, or there is none: only a new sign-in helps. `message`: the service's text, or ''. */
export interface SignedOut {
  readonly kind: 'signed-out'
  readonly message: string
}

export type ChangeRefusal = ProofNeeded | SignedOut

/** A proof of the account: the browser now holds a fresh one; or why not. */
export type ProofAnswer =
  | { readonly kind: 'proven' }
  | SignedOut
  | Refusal
  | { readonly kind: 'failed' }

const WAYS: readonly ProofWay[] = ['password', 'password+code', 'code', 'passkey']

/**
 * A refusal only a proof or a new sign-in answers, or null for any other
 * answer: 403 with `fresh_proof_required` (its `proof_methods`, those the
 * page knows), 401 with `session_ended` or `signed_out`. A 401 without the
 * reason (a wrong password at reauthenticate) is an ordinary refusal.
 */
export function parseChangeRefusal (answer: JsonAnswer): ChangeRefusal | null {
  if (answer.kind !== 'json') return null
  const { reason, proof_methods: offered } = answer.body
  if (answer.status === 403 && reason === FRESH_PROOF_REQUIRED_REASON) {
    return { kind: 'proof-needed', ways: WAYS.filter((way) => Array.isArray(offered) && offered.includes(way)) }
  }
  if (answer.status === 401 && (reason === SESSION_ENDED_REASON || reason === SIGNED_OUT_REASON)) {
    const refusal = parseSuccessAnswer(answer)
    return { kind: 'signed-out', message: refusal.kind === 'error' ? refusal.message : '' }
  }
  return null
}

/** `reauthenticate` and `passkeys/reauthenticate`: proven on a 2xx answer without `error`. */
export function parseProofAnswer (answer: JsonAnswer): ProofAnswer {
  const refusal = parseChangeRefusal(answer)
  if (refusal?.kind === 'signed-out') return refusal
  const parsed = parseSuccessAnswer(answer)
  return parsed.kind === 'success' ? { kind: 'proven' } : parsed
}
