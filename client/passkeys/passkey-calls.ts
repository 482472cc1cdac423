import type { LoginContextFields } from '../sign-in/login-calls.js'
import { parseSuccessAnswer, type SuccessAnswer } from '../../common/http/accounts-answers.js'
import { parseChangeRefusal, type ChangeRefusal } from '../account-changes/fresh-proof-answers.js'
import { postJson } from '../http/post-json.js'
import {
  parsePasskeyLoginAnswer, parsePasskeyOptionsAnswer, type PasskeyLoginAnswer, type PasskeyOptionsAnswer
} from './passkey-answers.js'

/*
 * The passkey calls of docs/passkeys.md, one plain async function each, and
 * the token revocation a refused passkey sign-in needs. Loaded with the
 * passkey chunk only, never on the first load. The challenge cookie travels
 * as any same-origin cookie does.
 */

/** A credential in its WebAuthn JSON form (`credential.toJSON()`). */
export type CredentialJson = Readonly<Record<string, unknown>>

/** The request options for a sign-in with a passkey (autofill or the modal prompt). */
export async function passkeyLoginOptions (): Promise<PasskeyOptionsAnswer> {
  return parsePasskeyOptionsAnswer(await postJson('/accounts/passkeys/login/options', {}))
}

/** How the visitor chose the passkey: from the Email field's autofill menu, or the prompt after the button. */
export type PasskeyMediation = 'conditional' | 'button'

/**
 * Posts the assertion with the login context and the ceremony it came from
 * (which the edge counts, docs/operations.md); the answer carries the
 * tokens, the email and the account's passkeys.
 */
export async function passkeyLogin (credential: CredentialJson, context: LoginContextFields, mediation: PasskeyMediation): Promise<PasskeyLoginAnswer> {
  return parsePasskeyLoginAnswer(await postJson('/accounts/passkeys/login', { credential, ...context, mediation }))
}

/**
 * The creation options for the signed-in account; `conditional`: the upgrade
 * right after a password sign-in. Refused until the account is proven again
 * in this browser (docs/account-changes.md) where no sign-in here is fresh.
 */
export async function passkeyRegisterOptions (auth: string, conditional: boolean): Promise<PasskeyOptionsAnswer | ChangeRefusal> {
  const answer = await postJson('/accounts/passkeys/register/options', { conditional }, { bearer: auth })
  return parseChangeRefusal(answer) ?? parsePasskeyOptionsAnswer(answer)
}

/** Stores the new passkey; `conditional`: it came from the automatic upgrade, as its options did. */
export async function passkeyRegister (auth: string, credential: CredentialJson, conditional: boolean): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/passkeys/register', { credential, conditional }, { bearer: auth }))
}

/**
 * Logs out the sign-in whose refresh token the edge has just put in its
 * HttpOnly cookie (`token/revoke`, which the edge fills from the cookie and
 * answers by removing the token cookies), so that a refused sign-in leaves
 * no usable session.
 */
export async function revokeRefresh (): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/token/revoke', {}))
}
