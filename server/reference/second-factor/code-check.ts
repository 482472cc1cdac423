import type { AnswerKey } from '../languages/answer-texts.js'
import type { Account, SecondFactorRecord } from '../store/account-store.js'
import { parseCodeRequest, type GivenCode } from './code-requests.js'
import { matchingStep } from './second-factor-codes.js'
import type { SecondFactorsOptions } from './second-factors.js'

export type CodeCheckOptions = Pick<SecondFactorsOptions, 'store' | 'settings' | 'secrets' | 'recoveryCodes' | 'now'>

/** Why a code did not match, for the audit log. */
export interface CodeMismatch { readonly mismatch: 'wrong-code' | 'replayed-code' | 'wrong-recovery-code' }

/**
 * Whether a code is the account's: an authenticator's code (each time step
 * accepted once) or a recovery code (each used once). At sign-in
 * (CodeStep.verify), and as a proof before a change
 * (server/reference/account-changes/reauthentication.ts, which counts the
 * failures on its own locks: a token holder's wrong codes must not lock the
 * owner's sign-in).
 */
export class CodeCheck {
  constructor (private readonly options: CodeCheckOptions) {}

  /** Whether the code is the account's, using it up: how it was given, or why not. */
  async match (account: Account, factor: SecondFactorRecord, code: GivenCode): Promise<'totp' | 'recovery-code' | CodeMismatch> {
    const { store, now } = this.options
    if ('totp' in code) {
      const step = matchingStep(this.options.secrets.open(factor.encryptedSecret, account.id), code.totp, now())
      if (step === null) return { mismatch: 'wrong-code' }
      return await store.acceptSecondFactorStep(account.id, step) ? 'totp' : { mismatch: 'replayed-code' }
    }
    return await store.useRecoveryCode(account.id, this.options.recoveryCodes.hash(code.recovery), now()) ? 'recovery-code' : { mismatch: 'wrong-recovery-code' }
  }

  /** Why a code given as a proof cannot be one (its shape alone), or null: asked before anything is checked. */
  codeShapeError (body: unknown): AnswerKey | null {
    const parsed = parseCodeRequest(body, { codeRequired: true, recoveryAllowed: true })
    return parsed.ok ? null : parsed.error
  }

  /** A code given again to prove the account for a change: 'proven', 'wrong', or the key of why the body is refused. */
  async proveWithCode (account: Account, body: unknown): Promise<'proven' | 'wrong' | AnswerKey> {
    const parsed = parseCodeRequest(body, { codeRequired: true, recoveryAllowed: true })
    if (!parsed.ok) return parsed.error
    const factor = await this.options.store.findSecondFactor(account.id)
    if (!this.options.settings.enabled || factor?.enrolledAt == null) return 'secondFactor.notEnrolled'
    return typeof await this.match(account, factor, parsed.value.code!) === 'string' ? 'proven' : 'wrong'
  }
}
