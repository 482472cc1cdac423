import type { AccountPasskey } from '../../common/account/account-state.js'
import { parseSuccessAnswer, type JsonAnswer, type SuccessAnswer } from '../../common/http/accounts-answers.js'
import { parseChangeRefusal, type ChangeRefusal } from '../account-changes/fresh-proof-answers.js'
import { postJson } from '../http/post-json.js'
import { createPasskey } from '../passkeys/passkey-ceremonies.js'
import { parsePasskeys } from './embedded-account-state.js'

/*
 * The account view's calls (docs/accounts-api.md, the account's own
 * calls), one plain async function each, with the account's auth token as
 * the bearer; the fresh proof travels as the `threshold_proof` cookie.
 * Every answer is parsed here, at the boundary, into AccountAnswer.
 */

/**
 * A change's answer: done (with the service's text, or ''), a proof or a new
 * sign-in needed first, refused with a text, or nothing usable.
 */
export type AccountAnswer = SuccessAnswer | ChangeRefusal

function changeAnswer (answer: JsonAnswer): AccountAnswer {
  return parseChangeRefusal(answer) ?? parseSuccessAnswer(answer)
}

async function post (path: string, auth: string, body: Readonly<Record<string, unknown>> = {}): Promise<AccountAnswer> {
  return changeAnswer(await postJson(`/accounts/${path}`, body, { bearer: auth }))
}

/** `sessions/end`: one of the account's sessions ends (this browser's included: a sign-out). */
export const endSession = async (auth: string, id: string): Promise<AccountAnswer> => await post('sessions/end', auth, { id })

/** `sessions/end-others`: every session but this browser's ends. */
export const endOtherSessions = async (auth: string): Promise<AccountAnswer> => await post('sessions/end-others', auth)

/** `password/change` (proof): a new password, or a first one for an account without. */
export const changePassword = async (auth: string, newPassword: string, endOthers: boolean): Promise<AccountAnswer> =>
  await post('password/change', auth, { newPassword, endOtherSessions: endOthers })

/** `email/change` (proof): a link goes to the new address, which confirms it. */
export const changeEmail = async (auth: string, newEmail: string): Promise<AccountAnswer> => await post('email/change', auth, { newEmail })

/** `account/delete` (proof): the account and its sessions are gone. */
export const deleteAccount = async (auth: string, confirmEmail: string): Promise<AccountAnswer> => await post('account/delete', auth, { confirmEmail })

/** `passkeys/rename` (proof). */
export const renamePasskey = async (auth: string, id: string, name: string): Promise<AccountAnswer> => await post('passkeys/rename', auth, { id, name })

/** `passkeys/remove` (proof): the passkey, and the sessions it started, are gone. */
export const removePasskey = async (auth: string, id: string): Promise<AccountAnswer> => await post('passkeys/remove', auth, { id })

/** `second-factor/remove` (proof): sign-ins no longer ask for a code. */
export const removeSecondFactor = async (auth: string): Promise<AccountAnswer> => await post('second-factor/remove', auth)

/** `second-factor/forget-browsers` (proof): every remembered browser asks for a code again. */
export const forgetBrowsers = async (auth: string): Promise<AccountAnswer> => await post('second-factor/forget-browsers', auth)

/** New recovery codes, shown once; or why not. */
export type RecoveryCodesAnswer = { readonly kind: 'codes', readonly codes: readonly string[] } | Exclude<AccountAnswer, { kind: 'success' }>

/** `second-factor/recovery-codes` (proof): a new set; the old one no longer works. */
export async function renewRecoveryCodes (auth: string): Promise<RecoveryCodesAnswer> {
  const answer = await postJson('/accounts/second-factor/recovery-codes', {}, { bearer: auth })
  const codes = answer.kind === 'json' && answer.status === 200 ? answer.body.recovery_codes : undefined
  if (Array.isArray(codes) && codes.length > 0 && codes.every((code) => typeof code === 'string')) return { kind: 'codes', codes }
  const parsed = changeAnswer(answer)
  return parsed.kind === 'success' ? { kind: 'failed' } : parsed
}

/** `passkeys/list`'s answer: the passkeys, and the account's WebAuthn user handle where the backend names it (`user_id`). */
export interface ListedPasskeys {
  readonly passkeys: readonly AccountPasskey[]
  readonly userId: string | null
}

/** `passkeys/list`: the account's passkeys as they are now (after one was added), or null when the answer is not one. */
export async function listPasskeys (auth: string): Promise<ListedPasskeys | null> {
  const answer = await postJson('/accounts/passkeys/list', {}, { bearer: auth })
  const passkeys = answer.kind === 'json' && answer.status === 200 ? parsePasskeys(answer.body.passkeys) : null
  if (answer.kind !== 'json' || passkeys === null) return null
  const userId = answer.body.user_id
  return { passkeys, userId: typeof userId === 'string' && userId !== '' ? userId : null }
}

/** A passkey made with the browser's prompt (passkeys/register), or the visitor cancelled it; or why not. */
export async function addPasskey (auth: string): Promise<{ readonly kind: 'created' } | { readonly kind: 'cancelled' } | ChangeRefusal | { readonly kind: 'failed' }> {
  const outcome = await createPasskey(auth)
  if (outcome === 'created') return { kind: 'created' }
  if (outcome === 'cancelled') return { kind: 'cancelled' }
  return outcome === 'failed' ? { kind: 'failed' } : outcome
}
