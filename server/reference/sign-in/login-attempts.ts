import { setTimeout as sleep } from 'node:timers/promises'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import { PasswordWorkRefused } from '../passwords/hash-gate.js'
import type { AccountStore, LoginThrottle } from '../store/account-store.js'
import { accountDelay, accountThrottleKey, lockKey, loginLockDuration, waitMessage } from './login-throttles.js'

export interface LoginAttemptsOptions {
  readonly store: AccountStore
  /** Counts the locks failures set. */
  readonly metrics: Pick<ReferenceMetrics, 'lockout'>
  readonly now: () => number
}

/** One password attempt's place in the throttles: its keys, and the pair's count when it began. */
export interface LoginAttempt {
  readonly email: string
  /** The pair's: this address with this address range, or with this known browser. */
  readonly throttleKey: string
  /** The account-wide count, which slows down and never shuts. */
  readonly accountKey: string
  readonly before: LoginThrottle
}

/**
 * The throttles a password attempt meets (the rules: login-throttles.ts):
 * a locked pair is refused before the password is checked, an unknown
 * browser waits the account's slow-down, a failure counts on both, and a
 * right password clears the pair's count.
 */
export class LoginAttempts {
  constructor (private readonly options: LoginAttemptsOptions) {}

  /** The attempt, once its pair is not locked and the account's slow-down is waited; else the 429. */
  async begin (email: string, knownBrowserHash: string | null, facts: RequestFacts): Promise<LoginAttempt | { readonly refused: Answer }> {
    const { store, now } = this.options
    const throttleKey = lockKey(email, { clientAddress: facts.clientAddress, knownBrowserHash })
    const accountKey = accountThrottleKey(email)
    const before = await store.readLoginThrottle(throttleKey)
    if (before.lockedUntil > now()) {
      logAuthEvent(facts, 'login.throttled', { email, clientAddress: facts.clientAddress })
      return { refused: error(429, say(facts, waitMessage(before.lockedUntil, now()))) }
    }
    // Failures from everywhere slow the account down, never shut it: see login-throttles.ts.
    if (knownBrowserHash === null) {
      const delay = accountDelay((await store.readLoginThrottle(accountKey)).failures)
      if (delay > 0) {
        logAuthEvent(facts, 'login.slowed', { email, clientAddress: facts.clientAddress, delayMs: delay })
        await sleep(delay, undefined, { signal: facts.signal }).catch(() => { throw new PasswordWorkRefused('client-gone') })
      }
    }
    return { email, throttleKey, accountKey, before }
  }

  /**
   * Counts a wrong password (or an unknown email) on the pair and the
   * account. Attempts running alongside this one all passed the pair's
   * check; if their failures reached a lock meanwhile, this one answers as
   * a locked pair does: otherwise guesses sent in parallel would get around
   * the lock.
   */
  async failed (attempt: LoginAttempt, facts: RequestFacts, accountId?: string): Promise<Answer> {
    const { store, metrics } = this.options
    const now = this.options.now()
    const failure = await store.recordLoginFailure(attempt.throttleKey, loginLockDuration, now)
    const accountWide = await store.recordLoginFailure(attempt.accountKey, () => 0, now)
    // Counted once each: the failure that set (or doubled) the pair's lock, the one that started the slow-down.
    if (loginLockDuration(failure.failures) > 0) metrics.lockout('address')
    if (accountDelay(accountWide.failures) > 0 && accountDelay(accountWide.failures - 1) === 0) metrics.lockout('account_slowdown')
    // The account, where the address has one, sees the failure in its activity (server/reference/audit/audit.ts).
    logAuthEvent(facts, 'login.failed', {
      email: attempt.email, clientAddress: facts.clientAddress, failures: failure.failures, accountFailures: accountWide.failures, ...(accountId === undefined ? {} : { accountId })
    })
    const othersFailed = failure.failures - 1
    return othersFailed > attempt.before.failures && loginLockDuration(othersFailed) > 0
      ? error(429, say(facts, waitMessage(failure.lockedUntil, this.options.now())))
      : error(401, say(facts, 'login.invalidCredentials'))
  }

  /** For a right password: the 429 when attempts alongside it locked the pair meanwhile (as failed() says), else null. */
  async lockedMeanwhile (attempt: LoginAttempt, facts: RequestFacts): Promise<Answer | null> {
    const current = await this.options.store.readLoginThrottle(attempt.throttleKey)
    if (current.failures <= attempt.before.failures || loginLockDuration(current.failures) <= 0) return null
    logAuthEvent(facts, 'login.throttled', { email: attempt.email, clientAddress: facts.clientAddress })
    return error(429, say(facts, waitMessage(current.lockedUntil, this.options.now())))
  }

  /** A right password starts the pair's count again. */
  async succeeded (attempt: LoginAttempt): Promise<void> {
    await this.options.store.clearLoginFailures(attempt.throttleKey)
  }
}
