import { logAuthEvent, type AuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { loginLockDuration, waitMessage } from '../sign-in/login-throttles.js'
import type { Account } from '../store/account-store.js'
import type { SecondFactorsOptions } from './second-factors.js'

/** The throttle of wrong codes of one account (server/reference/sign-in/login-throttles.ts' durations: 4 free, then doubling). */
export function secondFactorThrottleKey (accountId: string): string {
  return `second-factor:${accountId}`
}

export type CodeThrottleOptions = Pick<SecondFactorsOptions, 'store' | 'metrics' | 'now'>

/**
 * Wrong codes lock the keys they count on: the code step's key is the
 * account's (by default); an enrolment outside a login counts on its
 * session's proofs instead (Enrolment).
 */
export class CodeThrottle {
  constructor (private readonly options: CodeThrottleOptions) {}

  /** A 429 while wrong codes lock `keys`, else null. */
  async locked (account: Account, facts: RequestFacts, keys: readonly string[] = [secondFactorThrottleKey(account.id)]): Promise<Answer | null> {
    const throttles = await Promise.all(keys.map(async (key) => await this.options.store.readLoginThrottle(key)))
    const lockedUntil = Math.max(...throttles.map((throttle) => throttle.lockedUntil))
    if (lockedUntil <= this.options.now()) return null
    logAuthEvent(facts, 'second-factor.throttled', { accountId: account.id, clientAddress: facts.clientAddress })
    return error(429, say(facts, waitMessage(lockedUntil, this.options.now())))
  }

  /** Counts a wrong code on `keys`, logged as `event`: the 401. */
  async wrongCode (
    account: Account, facts: RequestFacts, event: AuthEvent, reason: string, keys: readonly string[] = [secondFactorThrottleKey(account.id)]
  ): Promise<Answer> {
    const failures = await Promise.all(keys.map(async (key) => (await this.options.store.recordLoginFailure(key, loginLockDuration, this.options.now())).failures))
    const most = Math.max(...failures)
    if (loginLockDuration(most) > 0) this.options.metrics.lockout('second_factor')
    logAuthEvent(facts, event, { accountId: account.id, clientAddress: facts.clientAddress, reason, failures: most })
    return error(401, say(facts, 'secondFactor.wrongCode'))
  }

  /** A right code starts the counts of `keys` again. */
  async clear (keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map(async (key) => await this.options.store.clearLoginFailures(key)))
  }
}
