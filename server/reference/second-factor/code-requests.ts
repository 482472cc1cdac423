import type { AnswerKey } from '../languages/answer-texts.js'
import { normaliseRecoveryCode } from './second-factor-codes.js'

const MALFORMED_CODE: AnswerKey = 'secondFactor.codeMalformed'
const MALFORMED_RECOVERY_CODE: AnswerKey = 'secondFactor.recoveryCodeMalformed'

type Parsed<T> = { readonly ok: true, readonly value: T } | { readonly ok: false, readonly error: AnswerKey }

/** An authenticator's code or a recovery code, as given. */
export type GivenCode = { readonly totp: string } | { readonly recovery: string }

/** The body of the second factor's calls: the login's challenge, a code, and "don't ask again on this browser". */
export interface CodeRequest {
  readonly challenge: string | null
  readonly code: GivenCode | null
  readonly rememberBrowser: boolean
}

/** The body of a second-factor call, checked before anything is looked up; `codeRequired`: a call that checks a code. */
export function parseCodeRequest (body: unknown, { codeRequired, recoveryAllowed }: { codeRequired: boolean, recoveryAllowed: boolean }): Parsed<CodeRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, error: 'request.notAnObject' }
  const fields = body as Record<string, unknown>
  const challenge = fields.challenge ?? null
  if (challenge !== null && (typeof challenge !== 'string' || challenge.length === 0 || challenge.length > 200)) {
    return { ok: false, error: 'secondFactor.challengeInvalid' }
  }
  const remember = fields.remember_browser ?? false
  if (typeof remember !== 'boolean') return { ok: false, error: 'secondFactor.rememberInvalid' }
  let code: CodeRequest['code'] = null
  if (fields.code !== undefined) {
    if (typeof fields.code !== 'string' || !/^\d{6}$/.test(fields.code)) return { ok: false, error: MALFORMED_CODE }
    code = { totp: fields.code }
  }
  if (recoveryAllowed && fields.recovery_code !== undefined) {
    if (code !== null) return { ok: false, error: 'secondFactor.codeAndRecoveryCode' }
    const normalised = typeof fields.recovery_code === 'string' && fields.recovery_code.length <= 40 ? normaliseRecoveryCode(fields.recovery_code) : null
    if (normalised === null) return { ok: false, error: MALFORMED_RECOVERY_CODE }
    code = { recovery: normalised }
  }
  if (codeRequired && code === null) return { ok: false, error: MALFORMED_CODE }
  return { ok: true, value: { challenge, code, rememberBrowser: remember } }
}
