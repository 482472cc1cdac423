import { parseChangeRefusal, type ChangeRefusal } from './fresh-proof-answers.js'
import { postJson } from './http.js'
import {
  parseEnrolmentConfirmAnswer, parseEnrolmentStartAnswer, parseVerifyAnswer,
  type EnrolmentConfirmAnswer, type EnrolmentStartAnswer, type SecondFactorVerifyAnswer
} from '../../common/second-factor-answers.js'

/*
 * The second-factor calls of docs/second-factor.md, one plain async function
 * each. Loaded with the second-factor chunks only, never on the first load.
 */

/** The proof the code step sends: an authenticator code or a recovery code. */
export type SecondFactorProof = { readonly code: string } | { readonly recovery_code: string }

export type VerifyRequest = SecondFactorProof & {
  readonly challenge: string
  readonly remember_browser: boolean
}

/** The code step: the login's tokens for a right code. */
export async function verifySecondFactor (request: VerifyRequest): Promise<SecondFactorVerifyAnswer> {
  return parseVerifyAnswer(await postJson('/accounts/second-factor/verify', request))
}

/**
 * Who enrols: the login's challenge (an enrolment the login requires), or
 * the signed-in account's auth token (the voluntary enrolment after a login).
 */
export type EnrolmentAuthority =
  | { readonly kind: 'challenge', readonly challenge: string }
  | { readonly kind: 'bearer', readonly auth: string }

const bearerOf = (authority: EnrolmentAuthority) => authority.kind === 'bearer' ? { bearer: authority.auth } : {}

/**
 * A new secret and its otpauth:// URI, for the QR code and for typing. With
 * the bearer, refused until the account is proven again in this browser
 * (docs/account-changes.md) where no sign-in here is fresh.
 */
export async function startEnrolment (authority: EnrolmentAuthority): Promise<EnrolmentStartAnswer | ChangeRefusal> {
  const body = authority.kind === 'challenge' ? { challenge: authority.challenge } : {}
  const answer = await postJson('/accounts/second-factor/enrol/start', body, bearerOf(authority))
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
  return parseEnrolmentConfirmAnswer(await postJson('/accounts/second-factor/enrol/confirm', body, bearerOf(authority)), authority.kind === 'challenge')
}
