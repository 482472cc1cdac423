import type { RequestFacts } from '../answers.js'
import { logAuthEvent } from '../audit.js'
import type { BrowserNotices } from '../browser-notices.js'
import { openEmailLink } from '../email-links.js'
import { inPageLanguage } from '../page-language.js'
import { removePasskeyAndItsSessions } from '../passkey-removal.js'
import type { AccountStore, OpenedEmailLink } from '../store/account-store.js'
import { parseUndoSubject } from './undo-subject.js'

export interface UndoChangeOptions {
  readonly store: AccountStore
  /** Ends the sessions and leads to a new password, as "was this you?" does. */
  readonly browserNotices: BrowserNotices
  readonly now: () => number
}

/**
 * `GET undoChange?token=`: the "this wasn't me" link of a change's email
 * (change-notices.ts). Once, within 7 days: every session of the account
 * ends, what the email announced is removed (the passkey; the authenticator
 * app with its recovery codes), and the owner lands on the set-password view
 * with a new reset token, exactly as after "was this you?" (browser-notices.ts).
 */
export class UndoChange {
  constructor (private readonly options: UndoChangeOptions) {}

  /** Where the browser goes next: the set-password view, or the reset view saying the link is spent. */
  async undo (token: unknown, facts: RequestFacts): Promise<string> {
    const { store, browserNotices, now } = this.options
    const link = await openEmailLink(store, 'undo-change', token, now())
    if (link === null) {
      logAuthEvent(facts, 'change.undo-refused', { clientAddress: facts.clientAddress })
      return browserNotices.linkRefusedPage(facts)
    }
    const page = await browserNotices.endEverySession(link.accountId)
    const removed = await this.removeAnnounced(link)
    logAuthEvent(facts, 'change.undone', { accountId: link.accountId, clientAddress: facts.clientAddress, removed })
    return inPageLanguage(page, facts.locale)
  }

  /** Removes what the link's email announced, if it is still there: what was removed, for the audit log. */
  private async removeAnnounced (link: OpenedEmailLink): Promise<'passkey' | 'second-factor' | 'recovery-codes' | 'nothing'> {
    const { store } = this.options
    const subject = parseUndoSubject(link.subject)
    // Every session was ended just before; one the passkey started meanwhile ends with it.
    if (subject?.kind === 'passkey') return await removePasskeyAndItsSessions(store, link.accountId, subject.id, this.options.now()) !== null ? 'passkey' : 'nothing'
    if (subject?.kind === 'second-factor') {
      // The organisation's requirement does not keep it: the next sign-in asks for an enrolment of the owner's own.
      const factor = await store.findSecondFactor(link.accountId)
      if (factor?.enrolledAt === subject.enrolledAt && await store.removeSecondFactor(link.accountId)) return 'second-factor'
    }
    // The renewed codes may be someone else's: none is left (the authenticator stays; the owner renews them later).
    if (subject?.kind === 'recovery-codes' && await store.replaceRecoveryCodes(link.accountId, [])) return 'recovery-codes'
    return 'nothing'
  }
}
