import { SIGNED_OUT_REASON } from '../../../common/account-changes/account-changes.js'
import { isRefusal, type AccountOwners } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { emailKey } from '../../shared/email-key.js'
import { accountDeletedEmail } from '../emails/account-deleted.js'
import { emailMessages } from '../emails/email-messages.js'
import { sendAfterAnswering, type Mailer } from '../emails/mailer.js'
import { identifyBrowser } from '../known-browsers/browser-names.js'
import type { Account, AccountStore } from '../store/account-store.js'

export interface AccountDeletionOptions {
  readonly store: Pick<AccountStore, 'deleteAccount'>
  readonly owners: AccountOwners
  readonly mailer: Mailer
  readonly productName: string
  readonly now: () => number
}

/** The longest `confirmEmail` read: an address is at most 254 characters. */
const CONFIRMATION_MAX_LENGTH = 320

/**
 * `account/delete`: the owner removes her account (docs/account-changes.md),
 * with a fresh proof and her address typed again. Every row of it leaves
 * the store at once, its refresh tokens with it: every session ends. Its
 * auth tokens then name no account, so a second call answers `signed_out`.
 * The owner is told at the address it had.
 */
export class AccountDeletion {
  constructor (private readonly options: AccountDeletionOptions) {}

  async delete (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'account.delete-refused', signedOut: 'account.deleteSignedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const typed = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).confirmEmail : undefined
    // As accounts are found by their address: case and Unicode forms aside (server/shared/email-key.ts).
    if (typeof typed !== 'string' || typed.length > CONFIRMATION_MAX_LENGTH || emailKey(typed.trim()) !== emailKey(account.email)) {
      logAuthEvent(facts, 'account.delete-refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'confirmation' })
      return error(400, say(facts, 'account.confirmEmailMismatch'))
    }
    // Gone already: a second call of the same moment, which the owner check let through before this one's delete.
    if (!await this.options.store.deleteAccount(account.id)) return error(401, say(facts, 'account.deleteSignedOut'), { reason: SIGNED_OUT_REASON })
    logAuthEvent(facts, 'account.deleted', { accountId: account.id, clientAddress: facts.clientAddress })
    this.tellOwner(account, facts)
    return successAnswer(say(facts, 'account.deleted'))
  }

  /** The owner hears of the deletion at the address the account had, as of every change (docs/account-changes.md), after the answer. */
  private tellOwner (account: Account, facts: RequestFacts): void {
    const { mailer, productName, now } = this.options
    const request = { at: new Date(now()), browser: identifyBrowser(facts.browser?.userAgent), address: facts.clientAddress }
    sendAfterAnswering(facts.log, 'account deleted', async () => {
      const delivery = await mailer.send(accountDeletedEmail({ to: account.email, productName, facts: request, messages: emailMessages(facts.locale) }))
      logAuthEvent(facts, 'change.notice-sent', { accountId: account.id, change: 'account-deleted', ...delivery })
    })
  }
}
