import type { JsonAnswer, Refusal } from '../../common/http/accounts-answers.js'
import { parseLoginAnswer, parseSuccessAnswer } from '../../common/http/accounts-answers.js'

/**
 * The answers of the passkey calls (docs/passkeys.md), parsed at the boundary
 * as the other calls' are (common/http/accounts-answers.ts): a server `error` wins whatever the
 * status; anything the page cannot use is `failed`.
 */

/** WebAuthn options in their JSON form (base64url strings for every buffer), passed on to the browser as they are. */
export type WebAuthnOptionsJson = Readonly<Record<string, unknown>>

export type PasskeyOptionsAnswer =
  | { readonly kind: 'options', readonly options: WebAuthnOptionsJson }
  | Refusal
  | { readonly kind: 'failed' }

/** A passkey sign-in: the tokens and what the Signal API needs to keep the visitor's password manager in step. */
export interface PasskeyTokens {
  readonly kind: 'tokens'
  readonly auth: string
  /** Null: the edge keeps it in its HttpOnly cookie (SignedIn). */
  readonly refresh: string | null
  readonly email: string
  readonly name: string
  /** The account's WebAuthn user handle, base64url. */
  readonly userId: string
  /** Every passkey the account has, base64url. */
  readonly credentialIds: readonly string[]
}

export type PasskeyLoginAnswer =
  | PasskeyTokens
  | { readonly kind: 'unknown-credential', readonly message: string, readonly credentialId: string }
  | Refusal
  | { readonly kind: 'failed' }

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== ''
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** Options count only on a 2xx answer, as an object with a challenge (the one field every ceremony needs). */
export function parsePasskeyOptionsAnswer (answer: JsonAnswer): PasskeyOptionsAnswer {
  const parsed = parseSuccessAnswer(answer)
  if (parsed.kind !== 'success' || answer.kind !== 'json') return parsed.kind === 'error' ? parsed : { kind: 'failed' }
  const { options } = answer.body
  return isRecord(options) && nonEmptyString(options.challenge) ? { kind: 'options', options } : { kind: 'failed' }
}

/**
 * Tokens need the email too (the domain check and the Signal API read it);
 * a refusal is an unknown credential only with 401, that reason and the id.
 */
export function parsePasskeyLoginAnswer (answer: JsonAnswer): PasskeyLoginAnswer {
  const parsed = parseLoginAnswer(answer)
  if (answer.kind !== 'json') return { kind: 'failed' }
  const body = answer.body
  if (parsed.kind === 'error') {
    if (answer.status === 401 && body.reason === 'unknown_credential' && nonEmptyString(body.credential_id)) {
      return { kind: 'unknown-credential', message: parsed.message, credentialId: body.credential_id }
    }
    return parsed
  }
  if (parsed.kind !== 'tokens' || !nonEmptyString(body.email)) return { kind: 'failed' }
  const ids = Array.isArray(body.credential_ids) ? body.credential_ids.filter(nonEmptyString) : []
  return {
    ...parsed,
    email: body.email,
    name: typeof body.name === 'string' ? body.name : '',
    userId: typeof body.user_id === 'string' ? body.user_id : '',
    credentialIds: ids
  }
}
