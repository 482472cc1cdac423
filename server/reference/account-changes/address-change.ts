import { pageWithNotice } from '../../../common/page/page-notices.js'
import { emailKey } from '../../shared/email-key.js'
import { logAuthEvent } from '../audit/audit.js'
import { addressChangeEmail, addressTakenEmail } from '../emails/address-change.js'
import { issueEmailLink, LINK_TOKEN_FORMAT, openEmailLink, peekEmailLink, VERIFY_LINK_TTL_MS, type OwnerEmailing } from '../emails/email-links.js'
import { emailMessages } from '../emails/email-messages.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { asBody, parseEmail } from '../http/validation.js'
import type { BrowserNotices } from '../known-browsers/browser-notices.js'
import { say } from '../languages/answer-texts.js'
import { inPageLanguage } from '../languages/page-language.js'
import { isRefusal, type AccountOwners } from './account-owner.js'
import type { ChangeNotices } from './change-notices.js'

/** An account asks for at most this many address changes an hour (each sends an email to an address it names). */
const ADDRESS_CHANGES_PER_HOUR = 5
/** The holder of a taken address hears of attempts on it at most once an hour. */
const ADDRESS_TAKEN_NOTICE_INTERVAL_MS = 60 * 60 * 1000

/** Where an opened link lands (absolute, on PUBLIC_URL: the edge's proxy would put a relative one under /accounts/). */
const ADDRESS_CHANGED_PAGE = pageWithNotice('email-changed')
const ADDRESS_LINK_REFUSED_PAGE = pageWithNotice('email-change-link-invalid')
const ADDRESS_IN_KNOWN_BROWSER_PAGE = pageWithNotice('email-change-in-known-browser')

export interface AddressChangeOptions extends OwnerEmailing {
  /** Who may change the account (account-owner.ts). */
  readonly owners: AccountOwners
  /** Tells the old address, with the "this wasn't me" link that puts it back. */
  readonly changeNotices: ChangeNotices
  /** Tells a browser that has signed in to an account from any other. */
  readonly browsers: Pick<BrowserNotices, 'knownBrowserHash'>
}

/** What confirming a link did. */
type Confirmation = 'changed' | 'refused' | 'taken'

/**
 * The owner's new address (docs/account-changes.md#a-new-address).
 * `email/change`, with a fresh proof, sends a link to the new address and
 * answers the same whether or not that address has an account, so that it
 * tells nobody which addresses do (a taken one is told someone tried). The
 * link confirms it once, within a day: `email/confirm` with its token, or
 * the emailed `GET confirmEmail?token=`, which acts only in a browser that
 * has signed in to the account, as the verification link does (mail
 * scanners open every link, and a mistyped address's scanner must not move
 * the account to a stranger). The address changes and is verified; every
 * link and reset token sent to the old one is void; the old one is told,
 * with a "this wasn't me" link (undo-change.ts) that puts it back and ends
 * every session once a new password is saved with it.
 */
export class AddressChange {
  constructor (private readonly options: AddressChangeOptions) {}

  /** `email/change {newEmail}`. */
  async request (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, now } = this.options
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'email.change.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const parsed = parseEmail(asBody(body).newEmail)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const newEmail = parsed.value
    if (emailKey(newEmail) === emailKey(account.email)) return error(400, say(facts, 'email.same'))
    const at = now()
    // Counted whether or not the address is taken, or the limit would tell which ones are.
    if (await store.countEmailLinksSince('change-email', account.id, at - 3_600_000) >= ADDRESS_CHANGES_PER_HOUR) {
      logAuthEvent(facts, 'email.change.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'too-often' })
      return error(429, say(facts, 'email.changeTooOften'))
    }
    // The link is made for a taken address too (and never sent): the same work, and the same count, either way.
    const link = await issueEmailLink(store, { purpose: 'change-email', accountId: account.id, publicUrl: this.options.publicUrl, now: at, locale: facts.locale, subject: newEmail })
    logAuthEvent(facts, 'email.change-requested', { accountId: account.id, clientAddress: facts.clientAddress })
    // Whether the address is taken is looked at only after the answer, which cannot then depend on it.
    sendAfterAnswering(facts.log, 'address change', async () => await this.sendLinkOrNotice(account.id, newEmail, link, facts))
    return successAnswer(say(facts, 'email.changeSent'))
  }

  /** `email/confirm {token}`: 200, or 400 for a forged, used or expired token, or an address taken meanwhile. */
  async confirm (body: unknown, facts: RequestFacts): Promise<Answer> {
    const confirmation = await this.confirmToken(asBody(body).token, facts)
    if (confirmation === 'changed') return successAnswer(say(facts, 'email.changed'))
    return error(400, say(facts, confirmation === 'taken' ? 'email.taken' : 'email.linkRefused'))
  }

  /** `GET confirmEmail?token=`: where the browser goes, in the link's language. */
  async land (token: unknown, facts: RequestFacts): Promise<string> {
    const page = (path: string): string => inPageLanguage(`${this.options.publicUrl}${path}`, facts.locale)
    const pending = await peekEmailLink(this.options.store, 'change-email', token, this.options.now())
    const account = pending === null ? null : await this.options.store.findAccountById(pending.accountId)
    if (account !== null && await this.options.browsers.knownBrowserHash(account, facts) === null) {
      logAuthEvent(facts, 'email.confirm-needs-known-browser', { accountId: account.id, clientAddress: facts.clientAddress })
      return page(ADDRESS_IN_KNOWN_BROWSER_PAGE)
    }
    return page(await this.confirmToken(token, facts) === 'changed' ? ADDRESS_CHANGED_PAGE : ADDRESS_LINK_REFUSED_PAGE)
  }

  private async confirmToken (token: unknown, facts: RequestFacts): Promise<Confirmation> {
    const { store } = this.options
    const now = this.options.now()
    const link = typeof token === 'string' && LINK_TOKEN_FORMAT.test(token) ? await openEmailLink(store, 'change-email', token, now) : null
    const account = link === null ? null : await store.findAccountById(link.accountId)
    if (link?.subject == null || account === null) {
      logAuthEvent(facts, 'email.confirm-refused', { clientAddress: facts.clientAddress, reason: 'link' })
      return 'refused'
    }
    const changed = await store.changeAccountEmail(account.id, link.subject, now)
    if (changed !== 'changed') {
      logAuthEvent(facts, 'email.confirm-refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: changed })
      return changed === 'taken' ? 'taken' : 'refused'
    }
    logAuthEvent(facts, 'email.changed', { accountId: account.id, clientAddress: facts.clientAddress })
    // To the address it had, whose holder the link's "this wasn't me" is for.
    this.options.changeNotices.tellOwner(account, { kind: 'email' }, facts, { kind: 'email', previous: account.email })
    return 'changed'
  }

  /** The link to a free address; to a taken one, a notice to its holder (at most one an hour) instead. */
  private async sendLinkOrNotice (accountId: string, newEmail: string, link: string, facts: RequestFacts): Promise<void> {
    const { store, mailer, productName, now } = this.options
    const messages = emailMessages(facts.locale)
    const holder = await store.findAccountByEmail(newEmail)
    if (holder === null) {
      const delivery = await mailer.send(addressChangeEmail({ to: newEmail, link, productName, validHours: VERIFY_LINK_TTL_MS / 3_600_000, messages }))
      // Where it went, never the link: it holds a live token.
      logAuthEvent(facts, 'email.change-link-sent', { accountId, ...delivery })
      return
    }
    if (!await store.takeNoticeSlot(holder.id, 'address-taken', now(), ADDRESS_TAKEN_NOTICE_INTERVAL_MS)) return
    const delivery = await mailer.send(addressTakenEmail({ to: holder.email, productName, messages }))
    logAuthEvent(facts, 'email.change-attempt-notice-sent', { accountId: holder.id, ...delivery })
  }
}
