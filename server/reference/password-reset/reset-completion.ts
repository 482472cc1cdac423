import type { AccountClaims } from '../account-changes/account-claims.js'
import type { ChangeNotices } from '../account-changes/change-notices.js'
import type { FreshProofs } from '../account-changes/fresh-proofs.js'
import type { RecentFactors } from '../account-changes/recent-factors.js'
import type { UndoChange } from '../account-changes/undo-change.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { parsePasswordChange } from '../http/validation.js'
import type { BrowserNotices } from '../known-browsers/browser-notices.js'
import { say } from '../languages/answer-texts.js'
import { breachRefusalReason, type NewPasswords } from '../passwords/new-passwords.js'
import { accountThrottleKey, addressThrottleKey, browserThrottleKey } from '../sign-in/login-throttles.js'
import type { AccountStore } from '../store/account-store.js'
import { redeemPasswordLink } from './password-links.js'

export interface ResetCompletionOptions {
  readonly store: AccountStore
  readonly newPasswords: NewPasswords
  /** Hands an account never verified to whoever opened the emailed link. */
  readonly claims: AccountClaims
  readonly proofs: FreshProofs
  /** Whose browser the reset came from: its lock is lifted. */
  readonly browserNotices: BrowserNotices
  /** Removes what a change's email announced, when its "this wasn't me" link brought the new password. */
  readonly undoChange: UndoChange
  /** Tells the owner her password changed. */
  readonly changeNotices: ChangeNotices
  /** What a completed reset lists for review (docs/account-changes.md). */
  readonly recentFactors: RecentFactors
  readonly now: () => number
}

/** `resetPassword`: a new password, the account's links used up, every session of the account ended. */
export class ResetCompletion {
  constructor (private readonly options: ResetCompletionOptions) {}

  async complete (body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, newPasswords } = this.options
    const parsed = parsePasswordChange(body, newPasswords.rules)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    // Before the link is used: refused, the visitor chooses another password with the same link.
    const hashed = await newPasswords.hashUnlessBreached(parsed.value.password, facts)
    if ('refused' in hashed) {
      logAuthEvent(facts, 'reset.refused', { clientAddress: facts.clientAddress, reason: breachRefusalReason(hashed.refused) })
      return hashed.refused
    }
    const now = this.options.now()
    const redeemed = await redeemPasswordLink(store, parsed.value.token, now)
    if (redeemed === null) {
      logAuthEvent(facts, 'reset.refused', { clientAddress: facts.clientAddress })
      return error(400, say(facts, 'resetPassword.linkRefused'))
    }
    const { accountId } = redeemed
    // The link came by email: whoever opened it holds the address. Until now nobody had shown that, so
    // nothing set up before (a squatter's passkey or authenticator app) stays (AccountClaims).
    const beforeReset = await store.findAccountById(accountId)
    if (beforeReset !== null) await this.options.claims.claimIfUnverified(beforeReset, { via: 'emailed-link' }, facts)
    await store.updatePasswordHash(accountId, hashed.hash)
    await this.endEverySession(accountId, now)
    const account = await store.findAccountById(accountId)
    if (account !== null) await this.clearLocksOfResetter(account.email, facts)
    logAuthEvent(facts, 'reset.completed', { accountId, clientAddress: facts.clientAddress, via: redeemed.via })
    // "This wasn't me": what the change's email announced goes too, before the list below is made.
    if (redeemed.via === 'undo-change') await this.options.undoChange.undoAnnounced(redeemed.link, facts)
    // Read again: undoing an address change has put the one before back, and the notice goes there.
    const owner = redeemed.via === 'undo-change' ? await store.findAccountById(accountId) : account
    if (owner !== null) this.options.changeNotices.tellOwner(owner, { kind: 'password' }, facts)
    // The passkeys and app added lately, for the owner to remove what was not hers.
    return { status: 200, body: { success: say(facts, 'resetPassword.done'), ...await this.options.recentFactors.review(accountId) } }
  }

  /** Whatever the old password opened: other links, sessions, proofs, sign-ins waiting for a code, remembered browsers. */
  private async endEverySession (accountId: string, now: number): Promise<void> {
    const { store } = this.options
    // Another link sent earlier would otherwise still change the new password.
    await store.voidResetTokens(accountId, now)
    await store.revokeAccountRefreshTokens(accountId, now)
    await this.options.proofs.voidAll(accountId)
    // A sign-in with the old password, waiting for its code or enrolment, ends too.
    await store.voidSecondFactorChallenges(accountId)
    // The second factor stays (docs/second-factor.md), but no browser is spared its code step any more
    // (by the clock the remembered-browser cookies are issued by).
    await store.forgetRememberedBrowsers(accountId, this.options.now())
  }

  /**
   * Whoever completed a reset holds the address: the locks on her address
   * range and browser are lifted, and the account-wide count starts again
   * (guesses at the old password are worth nothing now). Locks elsewhere stay.
   */
  private async clearLocksOfResetter (email: string, facts: RequestFacts): Promise<void> {
    const { store } = this.options
    await store.clearLoginFailures(accountThrottleKey(email))
    await store.clearLoginFailures(addressThrottleKey(email, facts.clientAddress))
    const browserHash = this.options.browserNotices.presentedBrowserHash(facts)
    if (browserHash !== null) await store.clearLoginFailures(browserThrottleKey(email, browserHash))
  }
}
