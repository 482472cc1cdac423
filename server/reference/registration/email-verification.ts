import { pageWithNotice } from '../../../common/page/page-notices.js'
import { errorAnswer, successAnswer, type Answer, type EmailAudience, type RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import type { BrowserNotices } from '../known-browsers/browser-notices.js'
import { consumeEmailLink, issueEmailLink, peekEmailLink, VERIFY_LINK_TTL_MS, type OwnerEmailing } from '../emails/email-links.js'
import { inPageLanguage } from '../languages/page-language.js'
import { addressVerificationEmail } from '../emails/address-verification.js'
import { emailMessages } from '../emails/email-messages.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import type { Account } from '../store/account-store.js'
import { parseEmail } from '../http/validation.js'

/** Asking again sends at most one link a minute, and five an hour, to one account. */
export const VERIFICATION_RESEND_INTERVAL_MS = 60 * 1000
export const VERIFICATION_EMAILS_PER_HOUR = 5

/**
 * Where an opened link lands: the page's login view, with a notice the page
 * reads from its catalogue. Answered as absolute URLs on PUBLIC_URL: the
 * edge's proxy would put a relative one under /accounts/.
 */
const ADDRESS_VERIFIED_PAGE = pageWithNotice('email-verified')
const VERIFY_LINK_REFUSED_PAGE = pageWithNotice('verify-link-invalid')
const VERIFY_IN_KNOWN_BROWSER_PAGE = pageWithNotice('verify-in-known-browser')

const VERIFICATION_RESENT: AnswerKey = 'verification.resent'

export interface EmailVerificationOptions extends OwnerEmailing {
  /** Tells a browser that has signed in to an account from any other. */
  readonly browsers: Pick<BrowserNotices, 'knownBrowserHash'>
}

/**
 * Verified addresses: the link sent at registration (and again on request),
 * and what opening it does. Asking again answers the same whatever the
 * address, so it cannot be used to learn which addresses have accounts.
 */
export class EmailVerification {
  constructor (private readonly options: EmailVerificationOptions) {}

  /** Sends a verification link to the account's address. */
  async sendLink (account: Account, audit: EmailAudience): Promise<void> {
    const { store, mailer, publicUrl, productName, now } = this.options
    const link = await issueEmailLink(store, { purpose: 'verify-email', accountId: account.id, publicUrl, now: now(), locale: audit.locale })
    const delivery = await mailer.send(addressVerificationEmail({
      to: account.email, link, productName, validHours: VERIFY_LINK_TTL_MS / 3_600_000, messages: emailMessages(audit.locale)
    }))
    // Where the email went, never the link: it holds a live token.
    logAuthEvent(audit, 'verify.email-sent', { accountId: account.id, ...delivery })
  }

  /**
   * `GET verifyEmail?token=`: marks the address verified once; answers where the browser goes next.
   *
   * Only in a browser that registered the account or signed in to it (its known-browser cookie):
   * verifying ties the address to whoever holds the account. Opened anywhere else, by a mail
   * scanner or by an address owner who did not register, the link stays unused and says how to
   * finish; an owner who did not register proves the address by a reset or Google instead, which
   * takes the account with everything set up on it (server/reference/account-changes/account-claims.ts). Otherwise whoever
   * registered an address that is not his would have the account made his, and every passkey or
   * app he adds then would survive the owner's resets.
   */
  async verify (token: unknown, facts: RequestFacts): Promise<string> {
    const now = this.options.now()
    const pending = await peekEmailLink(this.options.store, 'verify-email', token, now)
    const account = pending === null ? null : await this.options.store.findAccountById(pending.accountId)
    if (account !== null && await this.options.browsers.knownBrowserHash(account, facts) === null) {
      logAuthEvent(facts, 'verify.needs-known-browser', { accountId: account.id, clientAddress: facts.clientAddress })
      return inPageLanguage(`${this.options.publicUrl}${VERIFY_IN_KNOWN_BROWSER_PAGE}`, facts.locale)
    }
    const accountId = await consumeEmailLink(this.options.store, 'verify-email', token, now)
    if (accountId === null) {
      logAuthEvent(facts, 'verify.refused', { clientAddress: facts.clientAddress })
      return inPageLanguage(`${this.options.publicUrl}${VERIFY_LINK_REFUSED_PAGE}`, facts.locale)
    }
    await this.options.store.markEmailVerified(accountId, now)
    logAuthEvent(facts, 'verify.completed', { accountId, clientAddress: facts.clientAddress })
    return inPageLanguage(`${this.options.publicUrl}${ADDRESS_VERIFIED_PAGE}`, facts.locale)
  }

  /** `POST verifyEmailRequest {email}`: a new link, if there is an unverified account and it is not asking too often. */
  async resend (body: unknown, facts: RequestFacts): Promise<Answer> {
    const email = parseEmail((body as { email?: unknown } | null)?.email)
    if (!email.ok) return errorAnswer(400, say(facts, email.error))
    logAuthEvent(facts, 'verify.requested', { email: email.value, clientAddress: facts.clientAddress })
    sendAfterAnswering(facts.log, 'verification', async () => {
      const { store, now } = this.options
      const account = await store.findAccountByEmail(email.value)
      if (account === null || account.emailVerifiedAt !== null) return
      const sent = await store.countEmailLinksSince('verify-email', account.id, now() - 3_600_000)
      if (sent >= VERIFICATION_EMAILS_PER_HOUR ||
          !await store.takeNoticeSlot(account.id, 'verification-resent', now(), VERIFICATION_RESEND_INTERVAL_MS)) {
        logAuthEvent(facts, 'verify.suppressed', { accountId: account.id, reason: 'asked too often' })
        return
      }
      await this.sendLink(account, facts)
    })
    return successAnswer(say(facts, VERIFICATION_RESENT))
  }
}
