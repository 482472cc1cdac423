import type { RequestFacts } from '../http/answers.js'
import { logAuthEvent } from '../audit/audit.js'
import { removePasskeyAndItsSessions } from '../passkeys/passkey-removal.js'
import { landOnNewPassword } from '../password-reset/password-links.js'
import type { AccountStore, OpenedEmailLink } from '../store/account-store.js'
import { parseUndoSubject } from './undo-subject.js'

export interface UndoChangeOptions {
  readonly store: AccountStore
  readonly publicUrl: string
  readonly now: () => number
}

/**
 * The "this wasn't me" link of a change's email (change-notices.ts). Opening
 * it (`GET undoChange?token=`) changes nothing: it lands on the set-password
 * view, which says what saving a new password will do. Once, within 7 days,
 * the new password saved with its token (ResetCompletion.complete)
 * ends every session, as any reset does, and removes what the email announced
 * (the passkey; the authenticator app with its recovery codes; renewed codes;
 * a new address, for the one before).
 */
export class UndoChange {
  constructor (private readonly options: UndoChangeOptions) {}

  /** Where the browser goes from the link: the set-password view, or the reset view saying the link is spent. */
  async land (token: unknown, facts: RequestFacts): Promise<string> {
    const { store, publicUrl, now } = this.options
    return await landOnNewPassword(store, { purpose: 'undo-change', publicUrl, now: now() }, token, facts)
  }

  /** Removes what the link's email announced, if it is still there, once the new password is saved. */
  async undoAnnounced (link: OpenedEmailLink, facts: RequestFacts): Promise<void> {
    const removed = await this.removeAnnounced(link)
    logAuthEvent(facts, 'change.undone', { accountId: link.accountId, clientAddress: facts.clientAddress, removed })
  }

  /** What was removed, for the audit log. */
  private async removeAnnounced (link: OpenedEmailLink): Promise<'passkey' | 'second-factor' | 'recovery-codes' | 'email' | 'social' | 'nothing'> {
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
    // The link came to the address before, which it proves again; one another account has taken since stays its own.
    if (subject?.kind === 'email' && await store.changeAccountEmail(link.accountId, subject.previous, this.options.now()) === 'changed') return 'email'
    // The identity the email announced, not one of the same provider the owner linked since.
    if (subject?.kind === 'social') {
      const linked = (await store.socialLinks.list(link.accountId)).find((entry) => entry.provider === subject.provider)
      if (linked?.subject === subject.subject && await store.socialLinks.unlink(link.accountId, subject.provider)) return 'social'
    }
    return 'nothing'
  }
}
