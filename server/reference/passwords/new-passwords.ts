import type { BreachCheck } from '../breached-passwords/breach-check.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import type { NewPasswordRules } from '../http/validation.js'
import { say } from '../languages/answer-texts.js'
import type { PasswordWork } from './password-work.js'

export interface NewPasswordsOptions {
  readonly work: PasswordWork
  /** Asks the breach corpus about new passwords (docs/breached-passwords.md); null: BREACHED_PASSWORDS=off. */
  readonly breachCheck: BreachCheck | null
  /** PASSWORD_MIN_LENGTH. */
  readonly minLength: number
  /** PRODUCT_NAME, a word no new password should be built on. */
  readonly productName: string
}

/** A password chosen at registration or at the end of a reset: its rules, and its hash unless the breach corpus refuses it. */
export class NewPasswords {
  constructor (private readonly options: NewPasswordsOptions) {}

  /** A new password's rules: the configured minimum, and the product's name as a context word. */
  get rules (): NewPasswordRules {
    return { minLength: this.options.minLength, contextWords: [this.options.productName] }
  }

  /**
   * The breach corpus's refusal of a new password, asked while it is hashed
   * (a refusal wastes one hash; a password let through waits for one call
   * less): the hash, or the refusal's answer.
   */
  async hashUnlessBreached (password: string, facts: RequestFacts): Promise<{ readonly hash: string } | { readonly refused: Answer }> {
    const [refusal, hash] = await Promise.all([
      this.options.breachCheck?.refusalOfNewPassword(password) ?? null,
      this.options.work.hash(password, facts.signal)
    ])
    if (refusal === null) return { hash }
    const refused = error(refusal.status, say(facts, refusal.text))
    return { refused: refusal.retryAfterSeconds === undefined ? refused : { ...refused, headers: { 'retry-after': String(refusal.retryAfterSeconds) } } }
  }
}

/** The audit log's reason for a refused new password: the corpus's word, or the check that could not be made. */
export function breachRefusalReason (refused: Answer): 'breached' | 'breach-check-unavailable' {
  return refused.status === 400 ? 'breached' : 'breach-check-unavailable'
}
