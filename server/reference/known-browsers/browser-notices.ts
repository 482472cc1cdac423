import type { EmailAudience, BrowserFacts, RequestFacts } from '../http/answers.js'
import { logAuthEvent } from '../audit/audit.js'
import type { BrowserCookies } from './browser-cookie.js'
import { identifyBrowser } from './browser-names.js'
import { END_SESSIONS_LINK_TTL_MS, issueEmailLink, type OwnerEmailing } from '../emails/email-links.js'
import { emailMessages } from '../emails/email-messages.js'
import { newBrowserEmail } from '../emails/new-browser.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import { landOnNewPassword } from '../password-reset/password-links.js'
import type { Account } from '../store/account-store.js'
import { hashToken } from '../sessions/tokens.js'

/** However many new browsers sign in, the owner hears of one per quarter of an hour. */
export const NEW_BROWSER_NOTICE_INTERVAL_MS = 15 * 60 * 1000

/** An account id no account has: looked up for unknown emails. */
const NO_ACCOUNT_ID = '00000000-0000-0000-0000-000000000000'

export interface BrowserNoticesOptions extends OwnerEmailing {
  readonly cookies: BrowserCookies
}

/**
 * "Was this you?": a password sign-in from a browser that has not signed in
 * to the account before emails the owner a link that ends every session and
 * asks for a new password. The very first browser of an account (the one it
 * was registered in, or the first after this feature arrived) is recorded
 * without an email: there is nothing yet to compare it with.
 */
export class BrowserNotices {
  constructor (private readonly options: BrowserNoticesOptions) {}

  /** The id of the browser's cookie when its signature holds, else a new one. */
  browserId (browser: BrowserFacts): string {
    return this.options.cookies.read(browser.cookieHeader) ?? this.options.cookies.newId()
  }

  /** The hash by which the store knows the request's browser, when its cookie's signature holds; else null. */
  presentedBrowserHash (facts: RequestFacts): string | null {
    const browserId = facts.browser === null ? null : this.options.cookies.read(facts.browser.cookieHeader)
    return browserId === null ? null : hashToken(browserId)
  }

  /**
   * The request's browser's hash when it has signed in to `account` before
   * (server/reference/sign-in/login-throttles.ts exempts it from other places' locks); else null.
   * With no account (an unknown email) a browser with a cookie is looked up
   * all the same, so that the time taken tells nothing.
   */
  async knownBrowserHash (account: Account | null, facts: RequestFacts): Promise<string | null> {
    const browserHash = this.presentedBrowserHash(facts)
    if (browserHash === null) return null
    const known = await this.options.store.isKnownBrowser(account?.id ?? NO_ACCOUNT_ID, browserHash, this.options.now())
    return known && account !== null ? browserHash : null
  }

  setCookie (browserId: string): string {
    return this.options.cookies.setCookie(browserId)
  }

  /** Records that the browser registered the account, so that its first login is not news. */
  async registeredFrom (account: Account, browserId: string): Promise<void> {
    await this.options.store.rememberBrowser(account.id, hashToken(browserId), this.options.now())
  }

  /**
   * After a password sign-in: remembers the browser and, when it is new to
   * the account, emails the owner (after answering). Answers the cookie to
   * set, or none where browsers are not recognised. `tellOwner` false: the
   * sign-in was made with a code emailed to the owner a minute before, which
   * named this browser already (server/reference/emails/email-code.ts).
   */
  async signedIn (account: Account, facts: RequestFacts, { tellOwner = true }: { readonly tellOwner?: boolean } = {}): Promise<string | null> {
    if (facts.browser === null) return null
    const browserId = this.browserId(facts.browser)
    const now = this.options.now()
    const sighting = await this.options.store.rememberBrowser(account.id, hashToken(browserId), now)
    if (sighting === 'new' && tellOwner) {
      const userAgent = facts.browser.userAgent
      sendAfterAnswering(facts.log, 'new browser', () => this.tellOwner(account, { at: now, userAgent, clientAddress: facts.clientAddress }, facts))
    }
    return this.setCookie(browserId)
  }

  private async tellOwner (account: Account, signIn: { at: number, userAgent: string | undefined, clientAddress: string }, audit: EmailAudience): Promise<void> {
    const { store, mailer, publicUrl, productName, now } = this.options
    if (!await store.takeNoticeSlot(account.id, 'new-browser', now(), NEW_BROWSER_NOTICE_INTERVAL_MS)) {
      logAuthEvent(audit, 'browser.notice-suppressed', { accountId: account.id, reason: 'one was sent recently' })
      return
    }
    const link = await issueEmailLink(store, { purpose: 'end-sessions', accountId: account.id, publicUrl, now: now(), locale: audit.locale })
    const delivery = await mailer.send(newBrowserEmail({
      to: account.email,
      productName,
      facts: { at: new Date(signIn.at), browser: identifyBrowser(signIn.userAgent), address: signIn.clientAddress },
      link,
      validDays: END_SESSIONS_LINK_TTL_MS / 86_400_000,
      messages: emailMessages(audit.locale)
    }))
    logAuthEvent(audit, 'browser.notice-sent', { accountId: account.id, ...delivery })
  }

  /**
   * `GET endSessions?token=`: "this was not me". Opening the link changes
   * nothing (server/reference/password-reset/password-links.ts): the set-password view says that saving a new
   * password ends every session, and the reset's completion does it.
   */
  async endSessions (token: unknown, facts: RequestFacts): Promise<string> {
    const { store, publicUrl, now } = this.options
    return await landOnNewPassword(store, { purpose: 'end-sessions', publicUrl, now: now() }, token, facts)
  }
}
