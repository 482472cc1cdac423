import { ACCOUNT_EVENT_KINDS, type AccountEvent, type AccountEventKind } from '../../../common/account/account-state.js'
import { isRefusal, type AccountOwners } from '../account-changes/account-owner.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import { browserNameIn } from '../sessions/request-origin.js'
import { SECURITY_EVENT_MEMORY_MS, type AccountStore } from '../store/account-store.js'

/** The most events `activity/list` answers. */
const ACTIVITY_LIMIT = 100

export interface AccountActivityOptions {
  readonly store: Pick<AccountStore, 'listSecurityEvents'>
  readonly owners: AccountOwners
  readonly now: () => number
}

/**
 * `activity/list`: the account's sign-ins and changes of the last 30 days,
 * newest first (docs/account-changes.md), as server/reference/account/security-events.ts
 * keeps them. A live session is enough: it reads only.
 */
export class AccountActivity {
  constructor (private readonly options: AccountActivityOptions) {}

  async list (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'account.read-refused', signedOut: 'account.signedOut' })
    if (isRefusal(owner)) return owner
    const kept = await this.options.store.listSecurityEvents(owner.account.id, {
      since: this.options.now() - SECURITY_EVENT_MEMORY_MS, kinds: ACCOUNT_EVENT_KINDS, limit: ACTIVITY_LIMIT
    })
    const events: AccountEvent[] = kept.map((event) => ({
      at: event.at,
      kind: event.kind as AccountEventKind,
      method: event.method,
      browser: browserNameIn(facts, event.userAgent),
      addressRange: event.addressRange
    }))
    return { status: 200, body: { events } }
  }
}
