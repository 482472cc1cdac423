import { logAuthEvent } from '../audit/audit.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import type { LoginContext } from '../sessions/tokens.js'
import type { Account } from '../store/account-store.js'
import type { FirstFactor, FirstFactorProof, LoginChallenges } from './login-challenges.js'
import type { SecondFactorsOptions } from './second-factors.js'

export interface SecondFactorGateOptions extends Pick<SecondFactorsOptions, 'store' | 'settings' | 'rememberedBrowsers' | 'now' | 'stepUp'> {
  readonly challenges: LoginChallenges
}

/**
 * Where a password or Google sign-in meets the second factor, once its first
 * factor is right (AfterFirstFactor.secondFactorStep): a code asked for when
 * the account has an authenticator app, an enrolment when an organisation of
 * it requires one, nothing for a browser remembered ("don't ask again").
 */
export class SecondFactorGate {
  constructor (private readonly options: SecondFactorGateOptions) {}

  /**
   * The challenge answer when a second factor is due (and the browser is not
   * remembered), else null. `passwordBreached` is awaited only when a
   * challenge is issued: the breach check runs meanwhile.
   */
  async challengeIfDue (
    account: Account, context: LoginContext, method: FirstFactor, facts: RequestFacts, passwordBreached: Promise<boolean> = Promise.resolve(false),
    firstFactor: FirstFactorProof = {}
  ): Promise<Answer | null> {
    const { store, challenges } = this.options
    if (!this.options.settings.enabled) return null
    const factor = await store.findSecondFactor(account.id)
    if (factor?.enrolledAt != null) {
      // A client asked for a second factor (acr_values): a remembered browser does not skip it this time.
      if (!this.stepUpAsked(facts) && await this.remembersBrowser(account.id, facts)) {
        logAuthEvent(facts, 'second-factor.skipped', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'remembered browser' })
        return null
      }
      return await challenges.issue(account, 'code', context, method, facts, passwordBreached, firstFactor)
    }
    if (await store.secondFactorRequiredFor(account.id)) return await challenges.issue(account, 'enrol', context, method, facts, passwordBreached, firstFactor)
    return null
  }

  /** Whether the request carries an OpenID Connect client's mark asking for the second factor. */
  private stepUpAsked (facts: RequestFacts): boolean {
    return this.options.stepUp?.asked(facts.browser?.cookieHeader, this.options.now()) === true
  }

  /** Whether the account has an enrolled second factor (a remembered browser skipped its code). */
  async isEnrolled (accountId: string): Promise<boolean> {
    return this.options.settings.enabled && (await this.options.store.findSecondFactor(accountId))?.enrolledAt != null
  }

  /** Whether the request comes from a browser remembered for the account's second factor ("don't ask again"). */
  async remembersBrowser (accountId: string, facts: RequestFacts): Promise<boolean> {
    const cookieHeader = facts.browser?.cookieHeader
    if (cookieHeader === undefined) return false
    const forgottenAt = await this.options.store.rememberedBrowsersForgottenAt(accountId)
    return forgottenAt !== null && this.options.rememberedBrowsers.remembers(cookieHeader, accountId, forgottenAt, this.options.now())
  }
}
