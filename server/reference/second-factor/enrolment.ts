import { isRefusal, type OwnerNeed } from '../account-changes/account-owner.js'
import { reauthenticationThrottleKeys } from '../account-changes/reauthentication.js'
import { logAuthEvent, type AuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import type { Account, SecondFactorChallenge, SecondFactorRecord } from '../store/account-store.js'
import { parseCodeRequest } from './code-requests.js'
import { NO_CHALLENGE } from './code-step.js'
import { secondFactorThrottleKey, type CodeThrottle } from './code-throttle.js'
import type { LoginChallenges } from './login-challenges.js'
import { matchingStep, newRecoveryCodes, normaliseRecoveryCode, totpFor } from './second-factor-codes.js'
import type { EnrolmentCredential } from './second-factor-enrolment-secrets.js'
import type { SecondFactorsOptions } from './second-factors.js'

/** How long a secret from enrol/start may be confirmed. */
const PENDING_SECRET_TTL_MS = 10 * 60 * 1000

export interface EnrolmentOptions extends Pick<SecondFactorsOptions,
  'store' | 'owners' | 'changeNotices' | 'settings' | 'secrets' | 'enrolmentSecrets' | 'recoveryCodes' | 'productName' | 'now'
> {
  readonly challenges: LoginChallenges
  readonly throttle: CodeThrottle
}

/** Who enrols, and the keys its wrong codes count on. */
interface Enrollee {
  readonly account: Account
  readonly challenge: SecondFactorChallenge | null
  readonly throttleKeys: readonly string[]
}

/** What authorised an enrolment call, as enrollee() chose it: the challenge when one was sent, else the auth token. */
function enrolmentCredential (challenge: string | null, authToken: string | null): EnrolmentCredential {
  return challenge !== null ? { challenge } : { authToken: authToken! }
}

/**
 * Setting up an authenticator app (`second-factor/enrol/start` and
 * `/confirm`): during a login an organisation requires it for (with the
 * login's `enrol` challenge), or outside one by the signed-in owner.
 */
export class Enrolment {
  constructor (private readonly options: EnrolmentOptions) {}

  /** `second-factor/enrol/start`: the enrolment's pending secret and its otpauth:// URI for the authenticator app. */
  async start (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, secrets } = this.options
    const parsed = parseCodeRequest(body, { codeRequired: false, recoveryAllowed: false })
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const enrollee = await this.enrollee(parsed.value.challenge, authToken, facts, 'second-factor.enrol.refused', 'proof')
    if ('status' in enrollee) return enrollee
    const { account, challenge } = enrollee
    const credential = enrolmentCredential(parsed.value.challenge, authToken)
    const factor = await store.findSecondFactor(account.id)
    const conflict = this.pendingOfAnotherEnrolment(factor, account, credential, facts)
    if (conflict !== null) return conflict
    const now = this.options.now()
    // This enrolment's own secret, still pending (a retry, a second click), is answered again as it is.
    const resumed = factor !== null && factor.enrolledAt === null && factor.pendingExpiresAt > now
    // A login's enrolment ends with its challenge: its secret need not block another enrolment longer.
    const pendingUntil = resumed ? factor.pendingExpiresAt : Math.min(now + PENDING_SECRET_TTL_MS, challenge?.expiresAt ?? Infinity)
    const secret = this.options.enrolmentSecrets.secretFor(account.id, credential, pendingUntil)
    if (!resumed && !await store.startSecondFactorEnrolment(account.id, secrets.seal(secret, account.id), pendingUntil)) {
      logAuthEvent(facts, 'second-factor.enrol.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'enrolled' })
      return error(409, say(facts, 'secondFactor.enrolled'))
    }
    logAuthEvent(facts, 'second-factor.enrol.started', { accountId: account.id, clientAddress: facts.clientAddress, duringLogin: challenge !== null, resumed })
    return { status: 200, body: { secret, otpauth_uri: totpFor(secret, this.options.productName, account.email).toString() } }
  }

  /** `second-factor/enrol/confirm`: the first code stores the secret; ten recovery codes, once (and tokens during a login). */
  async confirm (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, throttle } = this.options
    const parsed = parseCodeRequest(body, { codeRequired: true, recoveryAllowed: false })
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    // The proof was asked for at the start; the pending secret is known only to the app that scanned it.
    const enrollee = await this.enrollee(parsed.value.challenge, authToken, facts, 'second-factor.enrol.refused', 'session')
    if ('status' in enrollee) return enrollee
    const { account, challenge, throttleKeys } = enrollee
    const locked = await throttle.locked(account, facts, throttleKeys)
    if (locked !== null) return locked
    const factor = await store.findSecondFactor(account.id)
    const now = this.options.now()
    if (factor?.enrolledAt != null) return error(409, say(facts, 'secondFactor.enrolled'))
    if (factor === null || factor.pendingExpiresAt <= now) return error(400, say(facts, 'secondFactor.setupExpired'))
    const conflict = this.pendingOfAnotherEnrolment(factor, account, enrolmentCredential(parsed.value.challenge, authToken), facts)
    if (conflict !== null) return conflict
    const code = parsed.value.code as { totp: string }
    const step = matchingStep(this.options.secrets.open(factor.encryptedSecret, account.id), code.totp, now)
    if (step === null) return await throttle.wrongCode(account, facts, 'second-factor.enrol.failed', 'wrong-code', throttleKeys)
    const recoveryCodes = newRecoveryCodes()
    const hashes = recoveryCodes.map((recovery) => this.options.recoveryCodes.hash(normaliseRecoveryCode(recovery)!))
    if (!await store.confirmSecondFactorEnrolment(account.id, step, hashes, now)) {
      // Another confirmation got there first, or the secret expired just now.
      return error(409, say(facts, 'secondFactor.enrolled'))
    }
    await throttle.clear(throttleKeys)
    logAuthEvent(facts, 'second-factor.enrolled', { accountId: account.id, clientAddress: facts.clientAddress, duringLogin: challenge !== null })
    // During a login too (an organisation's requirement): whoever had the password chose the app; the link removes it.
    this.options.changeNotices.tellOwner(account, { kind: 'second-factor-on' }, facts, { kind: 'second-factor', enrolledAt: now })
    if (challenge === null) return { status: 200, body: { recovery_codes: recoveryCodes } }
    return await this.finishLogin(account, challenge, { recoveryCodes, now }, parsed.value.rememberBrowser, facts)
  }

  /** The login an enrolment was asked for goes on, as the enrolment confirmed `now`: its tokens, with the recovery codes. */
  private async finishLogin (
    account: Account, challenge: SecondFactorChallenge, { recoveryCodes, now }: { recoveryCodes: readonly string[], now: number }, rememberBrowser: boolean, facts: RequestFacts
  ): Promise<Answer> {
    if (!await this.options.store.consumeSecondFactorChallenge(challenge.challengeHash, now)) {
      // Enrolled all the same: the next sign-in asks for a code.
      logAuthEvent(facts, 'second-factor.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'challenge-spent' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    const answer = await this.options.challenges.finishLogin(account, challenge, rememberBrowser, facts)
    return answer.status === 200 ? { ...answer, body: { ...answer.body, recovery_codes: recoveryCodes } } : answer
  }

  /**
   * Who enrols, and the keys its wrong codes count on: during a login, the account's code step
   * (whoever holds the challenge holds the password); outside one, the session's proofs, as
   * reauthentication counts them, so that a token holder's guesses lock his proofs and never the
   * owner's sign-in.
   */
  private async enrollee (presented: string | null, authToken: string | null, facts: RequestFacts, event: AuthEvent, need: OwnerNeed): Promise<Enrollee | Answer> {
    if (presented !== null) {
      const found = await this.options.challenges.find(presented, 'enrol')
      if (found !== null) return { ...found, throttleKeys: [secondFactorThrottleKey(found.account.id)] }
      logAuthEvent(facts, event, { clientAddress: facts.clientAddress, reason: 'no-challenge' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    // Outside a login: the owner of a live session, and at the start a fresh proof (docs/account-changes.md).
    const owner = await this.options.owners.check(authToken, facts, need, { event, signedOut: 'secondFactor.signedOut' })
    return isRefusal(owner) ? owner : { account: owner.account, challenge: null, throttleKeys: reauthenticationThrottleKeys(owner.claims) }
  }

  /**
   * A 409 when the account's unexpired pending secret was started by another
   * enrolment (another login, another tab, a bearer of the account's token),
   * which a start may not replace nor a confirmation confirm; else null.
   */
  private pendingOfAnotherEnrolment (factor: SecondFactorRecord | null, account: Account, credential: EnrolmentCredential, facts: RequestFacts): Answer | null {
    if (factor === null || factor.enrolledAt !== null || factor.pendingExpiresAt <= this.options.now()) return null
    if (this.options.enrolmentSecrets.startedBy(this.options.secrets.open(factor.encryptedSecret, account.id), factor.pendingExpiresAt, account.id, credential)) return null
    logAuthEvent(facts, 'second-factor.enrol.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'pending-elsewhere' })
    return error(409, say(facts, 'secondFactor.setupElsewhere'))
  }
}
