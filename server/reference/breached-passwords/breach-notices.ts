import { logAuthEvent } from '../audit/audit.js'
import { breachedPasswordEmail } from '../emails/breached-password.js'
import type { OwnerEmailing } from '../emails/email-links.js'
import { emailMessages } from '../emails/email-messages.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import type { RequestFacts } from '../http/answers.js'
import { inPageLanguage } from '../languages/page-language.js'
import type { Account } from '../store/account-store.js'

/** The owner of a breached password is emailed about it at most once in 30 days (the page says so at every login). */
const BREACHED_PASSWORD_NOTICE_INTERVAL_MS = 30 * 24 * 60 * 60 * 1000

/**
 * A login whose password is in the breach corpus (docs/breached-passwords.md):
 * signed in, told to change it (by the page, and by email at most once in
 * BREACHED_PASSWORD_NOTICE_INTERVAL_MS), and recorded.
 */
export class BreachNotices {
  constructor (private readonly options: OwnerEmailing) {}

  /** Records the login with a breached password, and emails the owner after the answer when it is time. */
  signedInWithBreachedPassword (account: Account, facts: RequestFacts): void {
    logAuthEvent(facts, 'login.password-breached', { accountId: account.id, clientAddress: facts.clientAddress })
    sendAfterAnswering(facts.log, 'breached password', () => this.tellOwner(account, facts))
  }

  private async tellOwner (account: Account, facts: RequestFacts): Promise<void> {
    const { store, mailer, publicUrl, productName, now } = this.options
    if (!await store.takeNoticeSlot(account.id, 'password-breached', now(), BREACHED_PASSWORD_NOTICE_INTERVAL_MS)) return
    const delivery = await mailer.send(breachedPasswordEmail({
      to: account.email,
      productName,
      resetPageUrl: inPageLanguage(`${publicUrl}/?view=resetPassword`, facts.locale),
      messages: emailMessages(facts.locale)
    }))
    logAuthEvent(facts, 'password.breach-notice-sent', { accountId: account.id, ...delivery })
  }
}
