import { BUSY_MESSAGE, plainText } from '../languages/page-texts.js'
import { EMAIL_NOT_VERIFIED_REASON } from '../page/page-notices.js'

/**
 * One JSON POST's answer, as every accounts call's is (docs/accounts-api.md, "How a call travels"). Network
 * failures and answers that are not JSON objects come back as `unreadable`;
 * the caller decides what the visitor is told. The page reads it from
 * fetch (client/http/post-json.ts), the edge from its own call when it answers a
 * form posted without scripts (server/edge/no-script/).
 */
export type JsonAnswer =
  | { readonly kind: 'json', readonly status: number, readonly body: Readonly<Record<string, unknown>> }
  | { readonly kind: 'unreadable' }

/**
 * The answers of the accounts calls, parsed at the boundary into unions the
 * page can switch on. `failed` is anything the page cannot use (network
 * failure, a body that is not JSON, a shape the spec does not describe); the
 * page shows the generic message for it (or the Google one in Google flows).
 */
export type LoginAnswer =
  | SignedIn
  | SecondFactorDue
  | Refusal
  | { readonly kind: 'failed' }

/**
 * A refusal with something to say: the service's own text, shown as it
 * came; or, for a busy service that sent none (503), `busy`, which the page
 * says in its language (BUSY_MESSAGE_KEY). `message` then holds English's
 * text, for the edge until server/ speaks the catalogue too.
 */
export interface Refusal {
  readonly kind: 'error'
  readonly message: string
  readonly busy?: true
}

/**
 * A login's tokens. `secondFactorEnrolled`: the service says the account has
 * a second factor (its code was skipped on a remembered browser), so the page
 * does not offer to set one up (docs/second-factor.md).
 */
export interface SignedIn {
  readonly kind: 'tokens'
  readonly auth: string
  /**
   * The refresh token, where the answer carries it: only local-network
   * mode's, which comes to the page straight from an accounts service. The
   * edge moves every other into its HttpOnly `refresh` cookie before the
   * page, or its own no-script path, reads the answer (docs/security.md,
   * "The token cookies"): null.
   */
  readonly refresh: string | null
  readonly secondFactorEnrolled?: boolean
  /** The password of this login was found in a breach (common/breached-passwords/breached-password.ts): the page says so before it leaves. */
  readonly passwordBreached?: boolean
}

/**
 * A login whose first factor was right and whose second is due
 * (docs/second-factor.md): `code` asks for an authenticator or recovery code,
 * `enrol` for an enrolment first. The challenge stands for the login (its
 * context and method) in the calls that follow; it is no token.
 */
export interface SecondFactorDue {
  readonly kind: 'second-factor'
  readonly step: 'code' | 'enrol'
  readonly challenge: string
  readonly expiresIn: number
}

/**
 * The email and password login's answer: a login answer, or a refusal because
 * the address is not verified yet (403 with `"reason": "email_not_verified"`),
 * after which the page offers to send a new verification link. Only this
 * call can answer so: Google and the identity providers vouch for addresses.
 */
export type PasswordLoginAnswer =
  | LoginAnswer
  | { readonly kind: 'email-not-verified', readonly message: string }

export type SuccessAnswer =
  | { readonly kind: 'success', readonly message: string }
  | Refusal
  | { readonly kind: 'failed' }

export type SsoStartAnswer =
  | { readonly kind: 'redirect', readonly url: string }
  | Refusal
  | { readonly kind: 'failed' }

const MAX_SERVER_MESSAGE_LENGTH = 500

/** The answer's `error` made plain; for a 503 without one (a service shedding load), the page's own "try again shortly". */
function refusalOf (answer: Extract<JsonAnswer, { kind: 'json' }>): Refusal | null {
  const error = answer.body.error
  const text = typeof error === 'string' ? plainText(error, MAX_SERVER_MESSAGE_LENGTH) : ''
  if (text !== '') return { kind: 'error', message: text }
  return answer.status === 503 ? { kind: 'error', message: BUSY_MESSAGE, busy: true } : null
}

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== ''

/**
 * The second-factor challenge of a 2xx login answer; null when the answer
 * names none, `failed` when it is malformed: a challenge beside tokens
 * (the contract says never both, so the page trusts neither), an unknown
 * step, an empty challenge or no positive lifetime.
 */
function secondFactorDue (body: Readonly<Record<string, unknown>>): SecondFactorDue | { readonly kind: 'failed' } | null {
  const { second_factor: step, challenge, expires_in: expiresIn } = body
  if (step === undefined && challenge === undefined) return null
  if (body.auth !== undefined || body.refresh !== undefined) return { kind: 'failed' }
  if ((step === 'code' || step === 'enrol') && nonEmptyString(challenge) && typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0) {
    return { kind: 'second-factor', step, challenge, expiresIn }
  }
  return { kind: 'failed' }
}

/** A server `error` wins whatever the status; tokens or a second-factor challenge count only on a 2xx answer. */
export function parseLoginAnswer (answer: JsonAnswer): LoginAnswer {
  if (answer.kind === 'unreadable') return { kind: 'failed' }
  const refusal = refusalOf(answer)
  if (refusal !== null) return refusal
  if (answer.status < 200 || answer.status >= 300) return { kind: 'failed' }
  const due = secondFactorDue(answer.body)
  if (due !== null) return due
  const tokens = tokensOf(answer.body)
  return tokens === null
    ? { kind: 'failed' }
    : { kind: 'tokens', ...tokens, ...(answer.body.second_factor_enrolled === true ? { secondFactorEnrolled: true } : {}), ...breachedFlag(answer.body) }
}

/** An answer's `auth` token, with its `refresh` token where it carries one (SignedIn); null when either is unusable. */
export function tokensOf (body: Readonly<Record<string, unknown>>): { readonly auth: string, readonly refresh: string | null } | null {
  const { auth, refresh } = body
  if (!nonEmptyString(auth)) return null
  if (refresh === undefined) return { auth, refresh: null }
  return nonEmptyString(refresh) ? { auth, refresh } : null
}

/** A login answer's `password_breached: true` (common/breached-passwords/breached-password.ts), as SignedIn carries it; anything else is no flag. */
export function breachedFlag (body: Readonly<Record<string, unknown>>): { readonly passwordBreached?: true } {
  return body.password_breached === true ? { passwordBreached: true } : {}
}

/**
 * As any login answer; a refusal is an unverified address only with status
 * 403, that reason and a text to show, so that no other refusal offers a link.
 */
export function parsePasswordLoginAnswer (answer: JsonAnswer): PasswordLoginAnswer {
  const parsed = parseLoginAnswer(answer)
  if (parsed.kind === 'error' && answer.kind === 'json' && answer.status === 403 && answer.body.reason === EMAIL_NOT_VERIFIED_REASON) {
    return { kind: 'email-not-verified', message: parsed.message }
  }
  return parsed
}

export function parseSuccessAnswer (answer: JsonAnswer): SuccessAnswer {
  if (answer.kind === 'unreadable') return { kind: 'failed' }
  const refusal = refusalOf(answer)
  if (refusal !== null) return refusal
  if (answer.status >= 200 && answer.status < 300) {
    const success = answer.body.success
    return { kind: 'success', message: typeof success === 'string' ? plainText(success, MAX_SERVER_MESSAGE_LENGTH) : '' }
  }
  return { kind: 'failed' }
}

/** `sso_url` is followed only if it is an absolute http(s) URL: never `javascript:` or `data:`. */
export function parseSsoStartAnswer (answer: JsonAnswer): SsoStartAnswer {
  if (answer.kind === 'unreadable') return { kind: 'failed' }
  const refusal = refusalOf(answer)
  if (refusal !== null) return refusal
  const ssoUrl = answer.body.sso_url
  if (answer.status < 200 || answer.status >= 300 || typeof ssoUrl !== 'string') return { kind: 'failed' }
  try {
    const url = new URL(ssoUrl)
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '') {
      return { kind: 'redirect', url: url.href }
    }
  } catch {
    // Not a URL: treated as a failure below.
  }
  return { kind: 'failed' }
}
