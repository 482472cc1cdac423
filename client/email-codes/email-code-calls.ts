import {
  parsePasswordLoginAnswer, parseSuccessAnswer, type PasswordLoginAnswer, type SuccessAnswer
} from '../../common/http/accounts-answers.js'
import { postJson } from '../http/post-json.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'

/*
 * The emailed code's calls (docs/email-codes.md), one plain async function
 * each, every answer parsed at the boundary into a union
 * (common/http/accounts-answers.ts) and never thrown. The
 * `email_code_browser` cookie that binds a code to this browser is HttpOnly
 * and travels as any same-origin cookie does. Loaded with the steps only.
 */

/** `email-code/send`: a code to `email`, the same answer whether or not it has an account (`success`, or a refusal: not an address, too many sends). */
export async function sendEmailCode (email: string): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/email-code/send', { email }))
}

/** `email-code/send` for a fresh proof: a code to the signed-in account's own address. */
export async function sendProofCode (auth: string): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/email-code/send', { purpose: 'reauthenticate' }, { bearer: auth }))
}

export interface EmailCodeLoginPayload extends LoginContextFields {
  readonly email: string
  /** As normalizeEmailCode makes it (common/email-codes/email-code-format.ts). */
  readonly code: string
}

/** `email-code/login`: the answers of `v2/login` (tokens, a second factor's challenge, a refusal), read as a login's are. */
export async function loginWithEmailCode (payload: EmailCodeLoginPayload): Promise<PasswordLoginAnswer> {
  return parsePasswordLoginAnswer(await postJson('/accounts/email-code/login', payload))
}
