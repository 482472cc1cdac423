import { logAuthEvent } from '../audit/audit.js'
import type { OwnerEmailing } from '../emails/email-links.js'
import { emailMessages } from '../emails/email-messages.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import { registrationAttemptEmail } from '../emails/registration-attempt.js'
import { errorAnswer as error, successAnswer as success, type Answer, type RequestFacts } from '../http/answers.js'
import { parseRegistration } from '../http/validation.js'
import type { BrowserNotices } from '../known-browsers/browser-notices.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { inPageLanguage } from '../languages/page-language.js'
import { breachRefusalReason, type NewPasswords } from '../passwords/new-passwords.js'
import type { PasswordWork } from '../passwords/password-work.js'
import type { EmailVerification } from './email-verification.js'
import type { SsoRequirement } from '../sso/sso-requirement.js'

/** The owner of an address hears of registration attempts on it at most once an hour. */
const REGISTRATION_ATTEMPT_NOTICE_INTERVAL_MS = 60 * 60 * 1000
/** With REQUIRE_VERIFIED_EMAIL, a new address and a taken one get this same answer. */
const REGISTERED_CHECK_INBOX: AnswerKey = 'register.checkInbox'

export interface RegistrationOptions extends OwnerEmailing {
  readonly work: PasswordWork
  readonly newPasswords: NewPasswords
  /** REQUIRE_VERIFIED_EMAIL. */
  readonly requireVerifiedEmail: boolean
  readonly verification: EmailVerification
  /** The browser registered from is known from the start: no new-browser email at its first sign-in. */
  readonly browserNotices: BrowserNotices
  /** A domain that signs in only with single sign-on registers no password account (sso-requirement.ts). */
  readonly ssoRequirement: SsoRequirement
}

/**
 * `register`: creates a password account and sends a link to verify its
 * address. With REQUIRE_VERIFIED_EMAIL, a taken address answers exactly as
 * a new one (same text, status, cookie, and the same work before answering:
 * the password is hashed either way) and its owner is emailed instead;
 * without it, the spec's flow says the address is taken.
 */
export class Registration {
  constructor (private readonly options: RegistrationOptions) {}

  async register (body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, browserNotices, requireVerifiedEmail } = this.options
    const parsed = parseRegistration(body, this.options.newPasswords.rules)
    if (!parsed.ok) {
      logAuthEvent(facts, 'register.refused', { clientAddress: facts.clientAddress, reason: 'invalid' })
      return error(400, say(facts, parsed.error))
    }
    const { email, password, firstName, lastName } = parsed.value
    // Before the password is hashed and the address looked at: a taken address and a new one are refused alike.
    const ssoRequired = this.options.ssoRequirement.refusalFor(email, 'password', facts)
    if (ssoRequired !== null) return ssoRequired
    // Before the address is looked at: a taken address and a new one are refused alike.
    const hashed = await this.options.newPasswords.hashUnlessBreached(password, facts)
    if ('refused' in hashed) {
      logAuthEvent(facts, 'register.refused', { clientAddress: facts.clientAddress, reason: breachRefusalReason(hashed.refused) })
      return hashed.refused
    }
    const result = await store.createAccount({
      email, firstName, lastName, passwordHash: hashed.hash, googleSubject: null
    })
    const browserId = facts.browser === null ? null : browserNotices.browserId(facts.browser)
    const cookies = browserId === null ? [] : [browserNotices.setCookie(browserId)]
    if ('conflict' in result) {
      if (!requireVerifiedEmail && await this.isRepeatedRegistration(email, password, facts)) {
        logAuthEvent(facts, 'register.repeated', { email, clientAddress: facts.clientAddress })
        return success(say(facts, 'register.done'))
      }
      logAuthEvent(facts, 'register.refused', { email, clientAddress: facts.clientAddress, reason: 'exists' })
      if (!requireVerifiedEmail) return error(409, say(facts, 'register.exists'))
      sendAfterAnswering(facts.log, 'registration attempt', () => this.tellOwnerOfAttempt(email, facts))
      return { ...success(say(facts, REGISTERED_CHECK_INBOX)), cookies }
    }
    const account = result.created
    logAuthEvent(facts, 'register.succeeded', { accountId: account.id, clientAddress: facts.clientAddress })
    sendAfterAnswering(facts.log, 'verification', async () => {
      if (browserId !== null) await browserNotices.registeredFrom(account, browserId)
      await this.options.verification.sendLink(account, facts)
    })
    return { ...success(say(facts, requireVerifiedEmail ? REGISTERED_CHECK_INBOX : 'register.done')), cookies }
  }

  /**
   * A registration tried again with the same address and password, while the account it made is
   * still unverified: the first was stored, but its answer was lost (a timeout, a 504). It succeeds
   * again rather than saying the address is taken; nothing is created twice. Only whoever holds the
   * password learns anything, and the spec's flow says the address is taken anyway. Its browser
   * is not recorded: knowing a password is not holding the address (email-verification.ts).
   */
  private async isRepeatedRegistration (email: string, password: string, facts: RequestFacts): Promise<boolean> {
    const existing = await this.options.store.findAccountByEmail(email)
    return existing !== null && existing.emailVerifiedAt === null && await this.options.work.checkPassword(existing, password, facts.signal)
  }

  /** "Someone tried to register with your address", at most once an hour per account. */
  private async tellOwnerOfAttempt (email: string, facts: RequestFacts): Promise<void> {
    const { store, mailer, publicUrl, productName, now } = this.options
    const account = await store.findAccountByEmail(email)
    if (account === null) return
    if (!await store.takeNoticeSlot(account.id, 'register-attempt', now(), REGISTRATION_ATTEMPT_NOTICE_INTERVAL_MS)) {
      logAuthEvent(facts, 'register.attempt-notice-suppressed', { accountId: account.id })
      return
    }
    const delivery = await mailer.send(registrationAttemptEmail({
      to: account.email, productName, pageUrl: inPageLanguage(`${publicUrl}/`, facts.locale), messages: emailMessages(facts.locale)
    }))
    logAuthEvent(facts, 'register.attempt-notice-sent', { accountId: account.id, ...delivery })
  }
}
