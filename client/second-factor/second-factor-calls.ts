import { parseChangeRefusal, type ChangeRefusal } from '../account-changes/fresh-proof-answers.js'
import { postJson, type PostOptions } from '../http/post-json.js'
import {
  parseEnrolmentConfirmAnswer, parseEnrolmentStartAnswer, parseVerifyAnswer,
  type EnrolmentConfirmAnswer, type EnrolmentStartAnswer, type SecondFactorVerifyAnswer
} from '../../common/second-factor/second-factor-answers.js'

/*
 * The second-factor calls of docs/second-factor.md, one plain async function
 * each. Loaded with the second-factor chunks only, never on the first load.
 */

/**
 * Where a login's second-factor call goes: the edge (`/accounts/`), or, for
 * a login made in local-network mode, the listener that issued its challenge
 * (`localOrigin`, the origin of its `/authenticate`), called as that login
 * was: across origins, no cookies.
 */
function target (path: string, localOrigin: string | null): { readonly url: string, readonly options: PostOptions } {
  return localOrigin === null
    ? { url: `/accounts/${path}`, options: {} }
    : { url: `${localOrigin}/${path}`, options: { mode: 'cors', credentials: 'omit' } }
}

/** The proof the code step sends: an authenticator code or a recovery code. */
type SecondFactorProof = { readonly code: string } | { readonly recovery_code: string }

export type VerifyRequest = SecondFactorProof & {
  readonly challenge: string
  readonly remember_browser: boolean
}

/** The code step: the login's tokens for a right code. `localOrigin`: a local-network login's listener (target). */
export async function verifySecondFactor (request: VerifyRequest, localOrigin: string | null = null): Promise<SecondFactorVerifyAnswer> {
  const { url, options } = target('second-factor/verify', localOrigin)
  return parseVerifyAnswer(await postJson(url, request, options))
}

/**
 * Who enrols: the login's challenge (an enrolment the login requires; with
 * `localOrigin` for a local-network login, see target), or the signed-in
 * account's auth token (the voluntary enrolment after a login).
 */
export type EnrolmentAuthority =
  | { readonly kind: 'challenge', readonly challenge: string, readonly localOrigin?: string | null }
  | { readonly kind: 'bearer', readonly auth: string }

/** Where an enrolment call goes, with the bearer credential when the authority is one. */
function enrolmentTarget (path: string, authority: EnrolmentAuthority): { readonly url: string, readonly options: PostOptions } {
  if (authority.kind === 'bearer') return { url: `/accounts/${path}`, options: { bearer: authority.auth } }
  return target(path, authority.localOrigin ?? null)
}

/**
 * A new secret and its otpauth:// URI, for the QR code and for typing. With
 * the bearer, refused until the account is proven again in this browser
 * (docs/account-changes.md) where no sign-in here is fresh.
 */
export async function startEnrolment (authority: EnrolmentAuthority): Promise<EnrolmentStartAnswer | ChangeRefusal> {
  const body = authority.kind === 'challenge' ? { challenge: authority.challenge } : {}
  const { url, options } = enrolmentTarget('second-factor/enrol/start', authority)
  const answer = await postJson(url, body, options)
  return parseChangeRefusal(answer) ?? parseEnrolmentStartAnswer(answer)
}

/**
 * The first code confirms the enrolment: the recovery codes, and the login's
 * tokens during a login (where `rememberBrowser` is sent; a signed-in
 * enrolment remembers no browser).
 */
export async function confirmEnrolment (authority: EnrolmentAuthority, code: string, rememberBrowser = false): Promise<EnrolmentConfirmAnswer> {
  const body = authority.kind === 'challenge'
    ? { challenge: authority.challenge, code, remember_browser: rememberBrowser }
    : { code }
  const { url, options } = enrolmentTarget('second-factor/enrol/confirm', authority)
  return parseEnrolmentConfirmAnswer(await postJson(url, body, options), authority.kind === 'challenge')
}
