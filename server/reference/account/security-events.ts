import type { ActivitySink, RequestFacts } from '../http/answers.js'
import { requestOrigin } from '../sessions/request-origin.js'
import type { AccountStore } from '../store/account-store.js'

export interface SecurityEventsOptions {
  readonly store: Pick<AccountStore, 'recordSecurityEvent'>
  readonly now: () => number
}

/**
 * Keeps the events an account's owner sees in the account view's activity,
 * as server/reference/audit/audit.ts logs them: each with where its request came
 * from (its browser, its address's range). Keeping one never fails the call
 * that made it: a store that fails is logged, and the call goes on.
 */
export class SecurityEvents {
  constructor (private readonly options: SecurityEventsOptions) {}

  /** The sink of one request's events (RequestFacts.activity). */
  sinkFor (facts: Pick<RequestFacts, 'clientAddress' | 'browser' | 'log'>): ActivitySink {
    return (accountId, kind, method) => {
      const event = { accountId, at: this.options.now(), kind, method, ...requestOrigin(facts) }
      // After the answer is on its way: a wrong password for an address with an account then
      // takes no longer to answer than one for an address without (SQLite writes in this thread).
      setImmediate(() => {
        this.options.store.recordSecurityEvent(event)
          .catch((error: unknown) => { facts.log.error({ err: error, kind }, 'keeping a security event failed') })
      })
    }
  }
}
