import { breachedFlag, parseLoginAnswer, parseSuccessAnswer, tokensOf, type JsonAnswer, type LoginAnswer, type Refusal, type SignedIn } from '../http/accounts-answers.js'

/**
 * The answers of the second-factor calls (docs/second-factor.md), parsed at
 * the boundary as the other calls' are (answers.ts): a server `error` wins
 * whatever the status; anything the page cannot use is `failed`.
 */

/** Tokens from the verify call (or a refusal); a second challenge instead of tokens is malformed. */
export type SecondFactorVerifyAnswer = Exclude<LoginAnswer, { kind: 'second-factor' }>

export type EnrolmentStartAnswer =
  | { readonly kind: 'secret', readonly secret: string, readonly otpauthUri: string }
  | Refusal
  | { readonly kind: 'failed' }

export type EnrolmentConfirmAnswer =
  | {
      readonly kind: 'confirmed'
      readonly recoveryCodes: readonly string[]
      /** The login's tokens, when the enrolment was part of a login; null after a voluntary one. */
      readonly tokens: Pick<SignedIn, 'kind' | 'auth' | 'refresh' | 'passwordBreached'> | null
    }
  | Refusal
  | { readonly kind: 'failed' }

const BASE32 = /^[A-Z2-7]+=*$/

export function parseVerifyAnswer (answer: JsonAnswer): SecondFactorVerifyAnswer {
  const parsed = parseLoginAnswer(answer)
  return parsed.kind === 'second-factor' ? { kind: 'failed' } : parsed
}

/**
 * The secret counts only as base32 with an `otpauth://totp/` URI that
 * carries the same secret: the QR code and the key shown for typing are
 * drawn from the two, and must not disagree.
 */
export function parseEnrolmentStartAnswer (answer: JsonAnswer): EnrolmentStartAnswer {
  const parsed = parseSuccessAnswer(answer)
  if (parsed.kind !== 'success' || answer.kind !== 'json') return parsed.kind === 'error' ? parsed : { kind: 'failed' }
  const { secret, otpauth_uri: uri } = answer.body
  if (typeof secret !== 'string' || !BASE32.test(secret) || typeof uri !== 'string') return { kind: 'failed' }
  try {
    const url = new URL(uri)
    if (url.protocol !== 'otpauth:' || !uri.startsWith('otpauth://totp/') || url.searchParams.get('secret')?.toUpperCase() !== secret) {
      return { kind: 'failed' }
    }
  } catch {
    return { kind: 'failed' }
  }
  return { kind: 'secret', secret, otpauthUri: uri }
}

/** Recovery codes count only as a non-empty list of non-empty strings; during a login, only with the tokens (tokensOf). */
export function parseEnrolmentConfirmAnswer (answer: JsonAnswer, duringLogin: boolean): EnrolmentConfirmAnswer {
  const parsed = parseSuccessAnswer(answer)
  if (parsed.kind !== 'success' || answer.kind !== 'json') return parsed.kind === 'error' ? parsed : { kind: 'failed' }
  const { recovery_codes: codes } = answer.body
  if (!Array.isArray(codes) || codes.length === 0 || !codes.every((code) => typeof code === 'string' && code !== '')) return { kind: 'failed' }
  if (!duringLogin) return { kind: 'confirmed', recoveryCodes: codes as string[], tokens: null }
  const tokens = tokensOf(answer.body)
  if (tokens === null) return { kind: 'failed' }
  return { kind: 'confirmed', recoveryCodes: codes as string[], tokens: { kind: 'tokens', ...tokens, ...breachedFlag(answer.body) } }
}
