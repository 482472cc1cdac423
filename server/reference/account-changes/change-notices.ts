import type { RequestFacts } from '../http/answers.js'
import { logAuthEvent } from '../audit/audit.js'
import { identifyBrowser } from '../known-browsers/browser-names.js'
import { END_SESSIONS_LINK_TTL_MS, issueEmailLink, type OwnerEmailing } from '../emails/email-links.js'
import { accountChangeEmail, type AccountChange } from '../emails/account-change.js'
import { emailMessages } from '../emails/email-messages.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import type { Account } from '../store/account-store.js'
import { undoSubjectText, type UndoSubject } from './undo-subject.js'

/**
 * The owner hears about every change to how her account signs in
 * (docs/account-changes.md): an email in the language of the page the
 * change was made from, sent after the answer, naming the change, when, the
 * browser and the network address; its "this wasn't me" link
 * (`undoChange`, undo-change.ts) removes what the email announced when it
 * can (`undo`), ends every session and asks for a new password.
 */
export class ChangeNotices {
  constructor (private readonly options: OwnerEmailing) {}

  /** Emails the owner of `account` about `change`, made by the request of `facts`, after its answer. */
  tellOwner (account: Account, change: AccountChange, facts: RequestFacts, undo?: UndoSubject): void {
    const at = this.options.now()
    const request = { at: new Date(at), browser: identifyBrowser(facts.browser?.userAgent), address: facts.clientAddress }
    sendAfterAnswering(facts.log, 'account change', async () => {
      const { store, mailer, publicUrl, productName } = this.options
      const link = await issueEmailLink(store, {
        purpose: 'undo-change', accountId: account.id, publicUrl, now: at, locale: facts.locale, ...(undo === undefined ? {} : { subject: undoSubjectText(undo) })
      })
      const delivery = await mailer.send(accountChangeEmail({
        to: account.email,
        productName,
        change,
        facts: request,
        link,
        validDays: END_SESSIONS_LINK_TTL_MS / 86_400_000,
        messages: emailMessages(facts.locale)
      }))
      // Where it went, never the link: it holds a live token.
      logAuthEvent(facts, 'change.notice-sent', { accountId: account.id, change: change.kind, ...delivery })
    })
  }
}
