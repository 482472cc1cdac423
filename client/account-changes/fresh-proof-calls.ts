import type { CredentialJson } from '../passkeys/passkey-calls.js'
import { parsePasskeyOptionsAnswer, type PasskeyOptionsAnswer } from '../passkeys/passkey-answers.js'
import { parseChangeRefusal, parseProofAnswer, type ProofAnswer, type SignedOut } from './fresh-proof-answers.js'
import { postJson } from '../http/post-json.js'

/*
 * The calls that prove the signed-in account again before a change
 * (docs/account-changes.md), one plain async function each, with the
 * account's auth token as the bearer. The fresh proof they make is the
 * HttpOnly `threshold_proof` cookie, which travels as any same-origin cookie
 * does. Loaded with the lazy parts that change an account only.
 */

/** A second factor's code: from the authenticator app, or a recovery code. */
export type CodeProof = { readonly code: string } | { readonly recovery_code: string }

/**
 * What the visitor types to prove the account, as strongly as a sign-in of
 * it: the password alone (no second factor), the password and a code
 * together (a second factor), or a code alone (a second factor and no password).
 */
export type SecretProof = { readonly password: string } | (CodeProof & { readonly password: string }) | CodeProof | EmailCodeProof

/** A code emailed to the account's own address for this proof (`email-code/send` with the purpose `reauthenticate`). */
interface EmailCodeProof { readonly email_code: string }

/** `reauthenticate`: the password, a code, or both in one call, given again. */
export async function reauthenticate (auth: string, proof: SecretProof): Promise<ProofAnswer> {
  return parseProofAnswer(await postJson('/accounts/reauthenticate', proof, { bearer: auth }))
}

/** The request options for an assertion by one of the account's own passkeys. */
export async function passkeyReauthenticateOptions (auth: string): Promise<PasskeyOptionsAnswer | SignedOut> {
  const answer = await postJson('/accounts/passkeys/reauthenticate/options', {}, { bearer: auth })
  const refusal = parseChangeRefusal(answer)
  return refusal?.kind === 'signed-out' ? refusal : parsePasskeyOptionsAnswer(answer)
}

/** The assertion, made with user verification: a proof as good as the password. */
export async function passkeyReauthenticate (auth: string, credential: CredentialJson): Promise<ProofAnswer> {
  return parseProofAnswer(await postJson('/accounts/passkeys/reauthenticate', { credential }, { bearer: auth }))
}
