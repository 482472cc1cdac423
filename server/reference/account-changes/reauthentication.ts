import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import type { PasswordWork } from '../passwords/password-work.js'
import { loginLockDuration, waitMessage } from '../sign-in/login-throttles.js'
import type { CodeCheck } from '../second-factor/code-check.js'
import type { CodeReauthentication } from '../email-codes/code-reauthentication.js'
import type { Account, AccountStore } from '../store/account-store.js'
import type { AuthTokenClaims } from '../sessions/tokens.js'
import { PASSWORD_MAX_LENGTH } from '../http/validation.js'
import { isRefusal, type AccountOwners } from './account-owner.js'
import type { FreshProofs } from './fresh-proofs.js'

/**
 * The locks of proofs given again: one per session, so that guesses from one
 * stolen token stop there, and one per account, so that many tokens do not
 * multiply the guesses. Neither is a sign-in's lock: a token holder's wrong
 * guesses never lock the owner out of signing in.
 */
export function reauthenticationThrottleKeys (claims: Pick<AuthTokenClaims, 'accountId' | 'sessionId'>): readonly string[] {
  return [`reauth-session:${claims.sessionId}`, `reauth-account:${claims.accountId}`]
}

export interface ReauthenticationOptions {
  readonly store: AccountStore
  readonly owners: AccountOwners
  readonly proofs: FreshProofs
  readonly passwords: Pick<PasswordWork, 'checkPassword'>
  /** The codes' check; null: SECOND_FACTOR=false. */
  readonly secondFactorCodes: Pick<CodeCheck, 'proveWithCode' | 'codeShapeError'> | null
  /** The emailed codes' check (server/reference/email-codes/); null: EMAIL_CODES=false. */
  readonly emailCodes: Pick<CodeReauthentication, 'parse' | 'prove'> | null
  /** The clock the instances share (AccountStore.now): its locks are compared by every instance. */
  readonly now: () => number
}

/** What the visitor gave: the password or an emailed code, a code (authenticator or recovery), or both. */
interface GivenProof {
  readonly password: string | null
  /** A code emailed to the account's address (`email_code`), as typed: it stands where the password would. */
  readonly emailCode: unknown
  readonly code: Readonly<Record<string, unknown>> | null
}

/**
 * `reauthenticate`: the signed-in owner proves the account again in this
 * browser, as strongly as a sign-in of it (docs/account-changes.md): the
 * password; with a second factor, the password and a code in one call (a
 * code alone where the account has no password); a code emailed to the
 * account's address (`email_code`, with EMAIL_CODES) where the password would
 * go, proving what a password proves; a passkey is passkeys/reauthenticate.
 * A stolen auth token alone cannot make a proof.
 */
export class Reauthentication {
  constructor (private readonly options: ReauthenticationOptions) {}

  async withSecret (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'reauth.failed', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account, claims } = owner
    const offered = givenProof(body, this.options.emailCodes !== null)
    if (offered === null) return error(400, say(facts, 'reauth.proofMissing'))
    const emailCode = offered.emailCode === undefined ? null : this.options.emailCodes!.parse(offered.emailCode)
    if (emailCode?.ok === false) return error(400, say(facts, emailCode.error))
    const hasSecondFactor = this.options.secondFactorCodes !== null && await this.options.owners.hasSecondFactor(account)
    // Without a second factor, a code proves nothing more: only the password is checked.
    const given = hasSecondFactor ? offered : { ...offered, code: null }
    const missing = missingPart(account, hasSecondFactor, given)
    if (missing !== null) return error(400, say(facts, missing))
    // A code that cannot be one is refused before the password is checked: a 400 after a right
    // password and a 401 after a wrong one would tell a guesser which it was.
    const malformed = given.code === null ? null : this.options.secondFactorCodes?.codeShapeError(given.code) ?? null
    if (malformed !== null) return error(400, say(facts, malformed))

    const keys = reauthenticationThrottleKeys(claims)
    const locked = await this.lockedUntil(keys)
    if (locked > this.options.now()) {
      logAuthEvent(facts, 'reauth.throttled', { accountId: account.id, clientAddress: facts.clientAddress })
      return error(429, say(facts, waitMessage(locked, this.options.now())))
    }
    // Counted before the check, so that guesses sent in parallel cannot all pass the lock above: an
    // attempt that finds others' failures over the free ones already is refused without a check.
    const counted = await Promise.all(keys.map(async (key) => await this.options.store.recordLoginFailure(key, loginLockDuration, this.options.now())))
    const overtaken = counted.find((throttle) => loginLockDuration(throttle.failures - 1) > 0)
    if (overtaken !== undefined) {
      logAuthEvent(facts, 'reauth.throttled', { accountId: account.id, clientAddress: facts.clientAddress })
      return error(429, say(facts, waitMessage(overtaken.lockedUntil, this.options.now())))
    }
    // The emailed code first, as a password is: a refused one spends no authenticator code.
    const byEmail = emailCode === null ? null : await this.options.emailCodes!.prove(account, emailCode.value, facts)
    if (byEmail !== null) return byEmail
    const proven = await this.check(account, given, facts)
    if (proven !== 'proven') {
      logAuthEvent(facts, 'reauth.failed', {
        accountId: account.id, clientAddress: facts.clientAddress, via: given.code === null ? 'password' : given.password === null ? 'code' : 'password-and-code',
        failures: Math.max(...counted.map((throttle) => throttle.failures))
      })
      return proven === 'wrong' ? error(401, say(facts, given.code === null ? 'reauth.wrongPassword' : 'reauth.wrongPasswordOrCode')) : error(400, say(facts, proven))
    }
    await Promise.all(keys.map(async (key) => await this.options.store.clearLoginFailures(key)))
    const method = given.code !== null ? 'otp' : emailCode !== null ? 'email' : 'pwd'
    const cookie = await this.options.proofs.record({ accountId: account.id, sessionId: claims.sessionId }, method, facts, { atSignIn: false })
    logAuthEvent(facts, 'reauth.succeeded', { accountId: account.id, clientAddress: facts.clientAddress, via: { pwd: 'password', email: 'email-code', otp: 'code' }[method] })
    return { ...successAnswer(say(facts, 'reauth.done')), cookies: cookie === null ? [] : [cookie] }
  }

  /** The later of the keys' locks (0: none). */
  private async lockedUntil (keys: readonly string[]): Promise<number> {
    const throttles = await Promise.all(keys.map(async (key) => await this.options.store.readLoginThrottle(key)))
    return Math.max(...throttles.map((throttle) => throttle.lockedUntil))
  }

  /** Checks every part given: the password first (a wrong one spends no code), then the code. */
  private async check (account: Account, given: GivenProof, facts: RequestFacts): Promise<'proven' | 'wrong' | AnswerKey> {
    if (given.password !== null && !await this.options.passwords.checkPassword(account, given.password, facts.signal)) return 'wrong'
    if (given.code === null) return 'proven'
    if (this.options.secondFactorCodes === null) return 'secondFactor.notEnrolled'
    return await this.options.secondFactorCodes.proveWithCode(account, given.code)
  }
}

/**
 * The parts of a proof the body gives; null when it gives none, a password that cannot be one, or a
 * password and an emailed code both (either proves the mailbox's holder, and only one is checked).
 * `email_code` is read only where emailed codes are on.
 */
function givenProof (body: unknown, emailCodes: boolean): GivenProof | null {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {}
  const { password, code, recovery_code: recoveryCode } = fields
  const emailCode = emailCodes ? fields.email_code : undefined
  if (password !== undefined && (typeof password !== 'string' || password.length === 0 || [...password].length > PASSWORD_MAX_LENGTH)) return null
  if (password !== undefined && emailCode !== undefined) return null
  const given: GivenProof = {
    password: password ?? null,
    emailCode,
    code: code === undefined && recoveryCode === undefined ? null : { ...code === undefined ? {} : { code }, ...recoveryCode === undefined ? {} : { recovery_code: recoveryCode } }
  }
  return given.password === null && given.emailCode === undefined && given.code === null ? null : given
}

/** What the proof lacks to be as strong as a sign-in of the account, or null (an emailed code stands for the password). */
function missingPart (account: Account, hasSecondFactor: boolean, given: GivenProof): AnswerKey | null {
  if (given.emailCode !== undefined) return hasSecondFactor && given.code === null ? 'reauth.codeRequired' : null
  if (account.passwordHash === null) {
    if (!hasSecondFactor) return 'reauth.noPassword'
    return given.code === null ? 'reauth.codeRequired' : null
  }
  if (given.password === null) return 'reauth.passwordRequired'
  return hasSecondFactor && given.code === null ? 'reauth.codeRequired' : null
}
