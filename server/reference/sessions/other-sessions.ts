import { successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import { isRefusal, type AccountOwners } from '../account-changes/account-owner.js'
import type { AccountStore } from '../store/account-store.js'

export interface OtherSessionsOptions {
  readonly store: Pick<AccountStore, 'revokeOtherSessions'>
  /** Who may act on the account (server/reference/account-changes/account-owner.ts). */
  readonly owners: AccountOwners
  readonly now: () => number
}

/**
 * `sessions/end-others`: the signed-in owner signs out of every other
 * session, as offered after a factor changes (docs/account-changes.md#ending-the-other-sessions).
 * A live session is enough: ending sessions takes nothing from the owner, so
 * no fresh proof is asked, and the caller's own session (the token's `sid`)
 * goes on.
 */
export class OtherSessions {
  constructor (private readonly options: OtherSessionsOptions) {}

  async endOthers (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'sessions.end-others.refused', signedOut: 'session.othersSignedOut' })
    if (isRefusal(owner)) return owner
    const { account, claims } = owner
    // The proofs made in the ended sessions end with them (server/reference/account-changes/fresh-proofs.ts binds each to its session); the caller's stays.
    const sessionsEnded = await this.options.store.revokeOtherSessions(account.id, claims.sessionId, this.options.now())
    logAuthEvent(facts, 'sessions.others-ended', { accountId: account.id, clientAddress: facts.clientAddress, sessionsEnded })
    return successAnswer(say(facts, 'session.othersEnded'))
  }
}
