import { isRefusal } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { newRecoveryCodes, normaliseRecoveryCode } from './second-factor-codes.js'
import type { SecondFactorsOptions } from './second-factors.js'

export type SecondFactorChangesOptions = Pick<SecondFactorsOptions,
  'store' | 'owners' | 'changeNotices' | 'settings' | 'recoveryCodes' | 'now'
>

/** The owner's changes to her second factor, each with a fresh proof: turning it off, new recovery codes, remembered browsers forgotten. */
export class SecondFactorChanges {
  constructor (private readonly options: SecondFactorChangesOptions) {}

  /** `second-factor/remove`: turns the authenticator off; not where an organisation requires one. */
  async remove (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const { store } = this.options
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'second-factor.remove.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    if (await store.secondFactorRequiredFor(account.id)) {
      logAuthEvent(facts, 'second-factor.remove.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'required' })
      return error(409, say(facts, 'secondFactor.requiredByOrganization'))
    }
    if (!await store.removeSecondFactor(account.id)) return error(404, say(facts, 'secondFactor.notEnrolled'))
    // A browser that skipped codes would otherwise skip them again if the owner enrols anew.
    await store.forgetRememberedBrowsers(account.id, this.options.now())
    logAuthEvent(facts, 'second-factor.removed', { accountId: account.id, clientAddress: facts.clientAddress })
    this.options.changeNotices.tellOwner(account, { kind: 'second-factor-off' }, facts)
    return { status: 200, body: { success: say(facts, 'secondFactor.removed') } }
  }

  /** `second-factor/recovery-codes`: ten new recovery codes; the old ones stop working. */
  async renewRecoveryCodes (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'second-factor.recovery-codes.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const recoveryCodes = newRecoveryCodes()
    const hashes = recoveryCodes.map((recovery) => this.options.recoveryCodes.hash(normaliseRecoveryCode(recovery)!))
    if (!this.options.settings.enabled || !await this.options.store.replaceRecoveryCodes(account.id, hashes)) {
      return error(404, say(facts, 'secondFactor.notEnrolled'))
    }
    logAuthEvent(facts, 'second-factor.recovery-codes-renewed', { accountId: account.id, clientAddress: facts.clientAddress })
    this.options.changeNotices.tellOwner(account, { kind: 'recovery-codes' }, facts, { kind: 'recovery-codes' })
    return { status: 200, body: { recovery_codes: recoveryCodes } }
  }

  /**
   * `second-factor/forget-browsers`: every browser the owner let skip the
   * code step ("don't ask again on this browser") is asked for a code again
   * at its next sign-in, this one included. Answered alike whether or not
   * any was remembered, or an app is enrolled: it only takes a shortcut away.
   */
  async forgetBrowsers (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'second-factor.forget-browsers.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    await this.options.store.forgetRememberedBrowsers(owner.account.id, this.options.now())
    logAuthEvent(facts, 'second-factor.browsers-forgotten', { accountId: owner.account.id, clientAddress: facts.clientAddress })
    return successAnswer(say(facts, 'secondFactor.browsersForgotten'))
  }
}
