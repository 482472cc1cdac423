import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../answers.js'
import { say } from '../answer-texts.js'
import { logAuthEvent } from '../audit.js'
import type { AccountsService } from '../accounts-service.js'
import { loginLockDuration, waitMessage } from '../login-throttles.js'
import type { SecondFactors } from '../second-factors.js'
import type { Account, AccountStore } from '../store/account-store.js'
import { PASSWORD_MAX_LENGTH } from '../validation.js'
import { isRefusal, type AccountOwners } from './account-owner.js'
import type { FreshProofs } from './fresh-proofs.js'

/** The throttle of wrong passwords given again by one account's session (login-throttles.ts' durations). */
export function reauthenticationThrottleKey (accountId: string): string {
  return `reauth:${accountId}`
}

export interface ReauthenticationOptions {
  readonly store: AccountStore
  readonly owners: AccountOwners
  readonly proofs: FreshProofs
  readonly accounts: Pick<AccountsService, 'checkPassword'>
  /** The codes' check; null: SECOND_FACTOR=false. */
  readonly secondFactors: Pick<SecondFactors, 'proveWithCode'> | null
}

/**
 * `reauthenticate`: the signed-in owner proves the account again in this
 * browser with the password or a code (a passkey: passkeys/reauthenticate),
 * and gets a fresh proof (docs/account-changes.md). A stolen auth token alone
 * cannot make one: wrong passwords lock as a login's do, wrong codes as the
 * code step's.
 */
export class Reauthentication {
  constructor (private readonly options: ReauthenticationOptions) {}

  async withSecret (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'reauth.failed', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {}
    if (fields.password !== undefined) return await this.withPassword(account, fields.password, facts)
    if (fields.code !== undefined || fields.recovery_code !== undefined) return await this.withCode(account, body, facts)
    return error(400, say(facts, 'reauth.proofMissing'))
  }

  private async withPassword (account: Account, password: unknown, facts: RequestFacts): Promise<Answer> {
    if (typeof password !== 'string' || password.length === 0 || [...password].length > PASSWORD_MAX_LENGTH) return error(400, say(facts, 'reauth.proofMissing'))
    if (account.passwordHash === null) return error(400, say(facts, 'reauth.noPassword'))
    const key = reauthenticationThrottleKey(account.id)
    const throttle = await this.options.store.readLoginThrottle(key)
    if (throttle.lockedUntil > Date.now()) {
      logAuthEvent(facts, 'reauth.throttled', { accountId: account.id, clientAddress: facts.clientAddress })
      return error(429, say(facts, waitMessage(throttle.lockedUntil, Date.now())))
    }
    if (!await this.options.accounts.checkPassword(account, password, facts.signal)) {
      const failure = await this.options.store.recordLoginFailure(key, loginLockDuration, Date.now())
      logAuthEvent(facts, 'reauth.failed', { accountId: account.id, clientAddress: facts.clientAddress, via: 'password', failures: failure.failures })
      return error(401, say(facts, 'reauth.wrongPassword'))
    }
    await this.options.store.clearLoginFailures(key)
    return await this.proven(account, 'pwd', facts)
  }

  private async withCode (account: Account, body: unknown, facts: RequestFacts): Promise<Answer> {
    if (this.options.secondFactors === null) return error(400, say(facts, 'secondFactor.notEnrolled'))
    const refused = await this.options.secondFactors.proveWithCode(account, body, facts)
    if (refused !== null) return refused
    return await this.proven(account, 'otp', facts)
  }

  private async proven (account: Account, method: 'pwd' | 'otp', facts: RequestFacts): Promise<Answer> {
    const cookie = await this.options.proofs.record(account.id, method, facts, { atSignIn: false })
    logAuthEvent(facts, 'reauth.succeeded', { accountId: account.id, clientAddress: facts.clientAddress, via: method === 'pwd' ? 'password' : 'code' })
    return { ...successAnswer(say(facts, 'reauth.done')), cookies: cookie === null ? [] : [cookie] }
  }
}
