import type { RequestFacts } from '../http/answers.js'
import { logAuthEvent } from '../audit/audit.js'
import { accountClaimedEmail } from '../emails/account-claimed.js'
import { emailMessages } from '../emails/email-messages.js'
import type { OwnerEmailing } from '../emails/email-links.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import { inPageLanguage } from '../languages/page-language.js'
import type { Account } from '../store/account-store.js'

/**
 * How the address was just proved: Google (whose subject the account is then tied to), an SSO
 * provider, a link emailed to it that sets a new password (a reset, "was this you?", "this
 * wasn't me"), a code emailed to it (server/reference/email-codes/), or a social
 * connection's provider (server/reference/social/).
 */
export type ClaimProof =
  | { readonly via: 'google', readonly googleSubject: string } | { readonly via: 'sso' } | { readonly via: 'emailed-link' } | { readonly via: 'emailed-code' }
  /** A social connection's provider, by the name its button shows (docs/social-sign-in.md). */
  | { readonly via: 'social', readonly provider: string }

/**
 * No pre-hijacking. Anyone can register an address with a password; until
 * the address is verified, that says nothing about who holds it, nor about
 * who added the passkeys or the authenticator app the account has. When a
 * Google or SSO sign-in, an emailed link or an emailed code proves the address, the account
 * passes to the person who proved it: the password set before, every
 * passkey, the second factor and every session are removed or revoked,
 * every emailed link is void, and the owner is told by email (a link's new
 * password tells her itself). An account whose address was verified is never
 * claimed this way.
 */
export class AccountClaims {
  constructor (private readonly options: OwnerEmailing) {}

  /** The account as it is after the claim (or unchanged, when its address was verified already). */
  async claimIfUnverified (account: Account, proof: ClaimProof, facts: RequestFacts): Promise<Account> {
    if (account.emailVerifiedAt !== null) return account
    const { store, now } = this.options
    // Read before, for the log only: the claim removes them in its own transaction.
    const passkeysRemoved = (await store.listPasskeys(account.id)).length
    const secondFactorRemoved = await store.findSecondFactor(account.id) !== null
    const claimed = await store.claimUnverifiedAccount(account.id, {
      now: now(),
      googleSubject: proof.via === 'google' ? proof.googleSubject : null
    })
    const current = await store.findAccountById(account.id)
    if (current === null) throw new Error('the claimed account has gone')
    if (!claimed) return current
    // The password's holder may be waiting at the code step: that sign-in ends with the others, and so do its proofs.
    await store.voidSecondFactorChallenges(account.id)
    await store.voidFreshProofs(account.id)
    logAuthEvent(facts, 'account.claimed', {
      accountId: account.id, clientAddress: facts.clientAddress, via: proof.via, passwordRemoved: account.passwordHash !== null, passkeysRemoved, secondFactorRemoved
    })
    // What came through the mailbox needs no email to it: its holder is the one who just used it.
    if (proof.via === 'emailed-link' || proof.via === 'emailed-code') return current
    sendAfterAnswering(facts.log, 'account claimed', async () => {
      const delivery = await this.options.mailer.send(accountClaimedEmail({
        to: current.email,
        productName: this.options.productName,
        via: proof.via === 'google' ? 'Google' : proof.via === 'social' ? { provider: proof.provider } : 'single sign-on',
        pageUrl: inPageLanguage(`${this.options.publicUrl}/`, facts.locale),
        messages: emailMessages(facts.locale)
      }))
      logAuthEvent(facts, 'account.claim-notice-sent', { accountId: account.id, ...delivery })
    })
    return current
  }

  /**
   * An account made with a password for `email`, never verified, passes to
   * whoever Google vouches for: the account, now tied to `subject`, or null
   * when there is none to claim.
   */
  async claimForGoogle (email: string, subject: string, facts: RequestFacts): Promise<Account | null> {
    const existing = await this.options.store.findAccountByEmail(email)
    if (existing === null || existing.emailVerifiedAt !== null || existing.googleSubject !== null) return null
    const claimed = await this.claimIfUnverified(existing, { via: 'google', googleSubject: subject }, facts)
    // Verified by someone else meanwhile: then it is not this Google account's.
    return claimed.googleSubject === subject ? claimed : null
  }
}
