import { PASSWORD_BREACHED_FIELD } from '../../../common/breached-password.js'
import type { SecondFactorSettings } from '../../shared/second-factor-config.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { logAuthEvent, type AuthEvent } from '../audit/audit.js'
import { loginLockDuration, waitMessage } from '../sign-in/login-throttles.js'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import type { RememberedBrowserCookies } from './remembered-browser-cookie.js'
import {
  matchingStep,
  newRecoveryCodes,
  normaliseRecoveryCode,
  totpFor,
  type RecoveryCodeHasher,
  type SecretBox
} from './second-factor-codes.js'
import type { ChangeNotices } from '../account-changes/change-notices.js'
import { isRefusal, type AccountOwners, type OwnerNeed } from '../account-changes/account-owner.js'
import { reauthenticationThrottleKeys } from '../account-changes/reauthentication.js'
import type { EnrolmentCredential, EnrolmentSecrets } from './second-factor-enrolment-secrets.js'
import type { Account, AccountStore, SecondFactorChallenge, SecondFactorChallengeKind, SecondFactorRecord } from '../store/account-store.js'
import { hashToken, newOpaqueToken, type AuthenticationMethod, type LoginContext, type TokenScope } from '../sessions/tokens.js'

/** How long a login may wait for its second factor: the challenge's life. */
export const SECOND_FACTOR_CHALLENGE_TTL_MS = 5 * 60 * 1000
/** How long a secret from enrol/start may be confirmed. */
export const PENDING_SECRET_TTL_MS = 10 * 60 * 1000

const NO_CHALLENGE: AnswerKey = 'secondFactor.noChallenge'
const MALFORMED_CODE: AnswerKey = 'secondFactor.codeMalformed'
const MALFORMED_RECOVERY_CODE: AnswerKey = 'secondFactor.recoveryCodeMalformed'

/** The first factors a second may follow. */
export type FirstFactor = 'pwd' | 'google'

/**
 * What a challenge record's context holds: the login's context fields, and
 * whether its password was found in the breach corpus, so that the answer
 * with the tokens carries the flag (common/breached-password.ts) after the code.
 */
/** What the first factor proved beyond the account: whether it was this browser's own (AfterFirstFactor.completeLogin). */
export interface FirstFactorProof {
  readonly provesBrowser?: boolean
}

/** `provesNoBrowser`: the first factor was a Google token the page did not ask for (AfterFirstFactor.completeLogin). */
type ChallengeContext = LoginContext & { readonly passwordBreached?: true, readonly provesNoBrowser?: true }

/** What a login does when its first factor was right: the service's part the accounts service calls. */
export interface SecondFactorGate {
  /**
   * The challenge answer when a second factor is due (and the browser is not
   * remembered), else null. `passwordBreached` is awaited only when a
   * challenge is issued: the breach check runs meanwhile.
   */
  challengeIfDue (
    account: Account, context: LoginContext, method: FirstFactor, facts: RequestFacts, passwordBreached?: Promise<boolean>, firstFactor?: FirstFactorProof
  ): Promise<Answer | null>
  /** Whether the account has an enrolled second factor (a remembered browser skipped its code). */
  isEnrolled (accountId: string): Promise<boolean>
  /** Whether the request comes from a browser remembered for the account's second factor ("don't ask again"). */
  remembersBrowser (accountId: string, facts: RequestFacts): Promise<boolean>
}

export interface SecondFactorsOptions {
  readonly store: AccountStore
  /** Who may change the account outside a login (server/reference/account-changes/account-owner.ts). */
  readonly owners: AccountOwners
  /** Tells the owner when the app is set up or turned off, and of new recovery codes. */
  readonly changeNotices: ChangeNotices
  readonly settings: SecondFactorSettings
  readonly secrets: SecretBox
  /** Derives each enrolment's pending secret, which binds it to that enrolment. */
  readonly enrolmentSecrets: EnrolmentSecrets
  readonly recoveryCodes: RecoveryCodeHasher
  readonly rememberedBrowsers: RememberedBrowserCookies
  /** PRODUCT_NAME: the issuer the authenticator app shows. */
  readonly productName: string
  /** Issues the tokens of a login (AfterFirstFactor.completeLogin). */
  readonly completeLogin: (account: Account, context: LoginContext, method: AuthenticationMethod, facts: RequestFacts, firstFactor?: FirstFactorProof) => Promise<Answer>
  /** Counts the locks wrong codes set. */
  readonly metrics: Pick<ReferenceMetrics, 'lockout'>
  readonly now: () => number
  /**
   * The listener these calls answer on, when not the edge's (withScope):
   * only challenges of logins made there are taken.
   */
  readonly scope?: TokenScope
}

/** What authorised an enrolment call, as enrollee() chose it: the challenge when one was sent, else the auth token. */
function enrolmentCredential (challenge: string | null, authToken: string | null): EnrolmentCredential {
  return challenge !== null ? { challenge } : { authToken: authToken! }
}

/** The throttle of wrong codes of one account (server/reference/sign-in/login-throttles.ts' durations: 4 free, then doubling). */
export function secondFactorThrottleKey (accountId: string): string {
  return `second-factor:${accountId}`
}

type Parsed<T> = { readonly ok: true, readonly value: T } | { readonly ok: false, readonly error: AnswerKey }

/** Why a code did not match, for the audit log. */
interface CodeMismatch { readonly mismatch: 'wrong-code' | 'replayed-code' | 'wrong-recovery-code' }

interface CodeRequest {
  readonly challenge: string | null
  readonly code: { readonly totp: string } | { readonly recovery: string } | null
  readonly rememberBrowser: boolean
}

function parseRequest (body: unknown, { codeRequired, recoveryAllowed }: { codeRequired: boolean, recoveryAllowed: boolean }): Parsed<CodeRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, error: 'request.notAnObject' }
  const fields = body as Record<string, unknown>
  const challenge = fields.challenge ?? null
  if (challenge !== null && (typeof challenge !== 'string' || challenge.length === 0 || challenge.length > 200)) {
    return { ok: false, error: 'secondFactor.challengeInvalid' }
  }
  const remember = fields.remember_browser ?? false
  if (typeof remember !== 'boolean') return { ok: false, error: 'secondFactor.rememberInvalid' }
  let code: CodeRequest['code'] = null
  if (fields.code !== undefined) {
    if (typeof fields.code !== 'string' || !/^\d{6}$/.test(fields.code)) return { ok: false, error: MALFORMED_CODE }
    code = { totp: fields.code }
  }
  if (recoveryAllowed && fields.recovery_code !== undefined) {
    if (code !== null) return { ok: false, error: 'secondFactor.codeAndRecoveryCode' }
    const normalised = typeof fields.recovery_code === 'string' && fields.recovery_code.length <= 40 ? normaliseRecoveryCode(fields.recovery_code) : null
    if (normalised === null) return { ok: false, error: MALFORMED_RECOVERY_CODE }
    code = { recovery: normalised }
  }
  if (codeRequired && code === null) return { ok: false, error: MALFORMED_CODE }
  return { ok: true, value: { challenge, code, rememberBrowser: remember } }
}

/**
 * The reference service's second factor (docs/second-factor.md): TOTP
 * authenticator apps with recovery codes, asked for after a password or
 * Google sign-in when the account has one or an organisation of it
 * requires one.
 */
export class SecondFactors implements SecondFactorGate {
  constructor (private readonly options: SecondFactorsOptions) {}

  /**
   * The same calls for another listener (local-network mode's): they take
   * only its logins' challenges, as this one takes none of them, so that
   * neither side's code step hands out the other's tokens. No browser is
   * remembered there: its calls come from another origin, without cookies.
   */
  withScope (scope: TokenScope): SecondFactors {
    return new SecondFactors({ ...this.options, scope, settings: { ...this.options.settings, rememberBrowser: false } })
  }

  private get store (): AccountStore { return this.options.store }

  async challengeIfDue (
    account: Account, context: LoginContext, method: FirstFactor, facts: RequestFacts, passwordBreached: Promise<boolean> = Promise.resolve(false),
    firstFactor: FirstFactorProof = {}
  ): Promise<Answer | null> {
    if (!this.options.settings.enabled) return null
    const factor = await this.store.findSecondFactor(account.id)
    if (factor?.enrolledAt != null) {
      if (await this.remembersBrowser(account.id, facts)) {
        logAuthEvent(facts, 'second-factor.skipped', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'remembered browser' })
        return null
      }
      return await this.issueChallenge(account, 'code', context, method, facts, passwordBreached, firstFactor)
    }
    if (await this.store.secondFactorRequiredFor(account.id)) return await this.issueChallenge(account, 'enrol', context, method, facts, passwordBreached, firstFactor)
    return null
  }

  async isEnrolled (accountId: string): Promise<boolean> {
    return this.options.settings.enabled && (await this.store.findSecondFactor(accountId))?.enrolledAt != null
  }

  async remembersBrowser (accountId: string, facts: RequestFacts): Promise<boolean> {
    const cookieHeader = facts.browser?.cookieHeader
    if (cookieHeader === undefined) return false
    const forgottenAt = await this.store.rememberedBrowsersForgottenAt(accountId)
    return forgottenAt !== null && this.options.rememberedBrowsers.remembers(cookieHeader, accountId, forgottenAt, this.options.now())
  }

  private async issueChallenge (
    account: Account, kind: SecondFactorChallengeKind, context: LoginContext, method: FirstFactor, facts: RequestFacts,
    passwordBreached: Promise<boolean>, firstFactor: FirstFactorProof
  ): Promise<Answer> {
    const challenge = newOpaqueToken()
    // In the record's context JSON, as refresh tokens keep their method in theirs: no new column for one flag.
    const carried: ChallengeContext = {
      ...context, ...await passwordBreached ? { passwordBreached: true } : {}, ...firstFactor.provesBrowser === false ? { provesNoBrowser: true } : {}
    }
    await this.store.insertSecondFactorChallenge({
      challengeHash: hashToken(challenge),
      accountId: account.id,
      kind,
      context: JSON.stringify(carried),
      method,
      expiresAt: this.options.now() + SECOND_FACTOR_CHALLENGE_TTL_MS
    })
    logAuthEvent(facts, 'second-factor.challenged', { accountId: account.id, clientAddress: facts.clientAddress, kind, method })
    return { status: 200, body: { second_factor: kind, challenge, expires_in: SECOND_FACTOR_CHALLENGE_TTL_MS / 1000 } }
  }

  /** The challenge and its account, if the challenge is live, of `kind` and of a login on this listener. */
  private async findChallenge (challenge: string, kind: SecondFactorChallengeKind): Promise<{ challenge: SecondFactorChallenge, account: Account } | null> {
    const found = await this.store.findSecondFactorChallenge(hashToken(challenge), this.options.now())
    if (found === null || found.kind !== kind || (JSON.parse(found.context) as ChallengeContext).scope !== this.options.scope) return null
    const account = await this.store.findAccountById(found.accountId)
    return account === null ? null : { challenge: found, account }
  }

  /**
   * A 429 while wrong codes lock `keys`, else null. The code step's key is the account's; an
   * enrolment outside a login counts on its session's proofs instead (enrollee).
   */
  private async locked (account: Account, facts: RequestFacts, keys: readonly string[] = [secondFactorThrottleKey(account.id)]): Promise<Answer | null> {
    const throttles = await Promise.all(keys.map(async (key) => await this.store.readLoginThrottle(key)))
    const lockedUntil = Math.max(...throttles.map((throttle) => throttle.lockedUntil))
    if (lockedUntil <= this.options.now()) return null
    logAuthEvent(facts, 'second-factor.throttled', { accountId: account.id, clientAddress: facts.clientAddress })
    return error(429, say(facts, waitMessage(lockedUntil, this.options.now())))
  }

  private async wrongCode (
    account: Account, facts: RequestFacts, event: AuthEvent, reason: string, keys: readonly string[] = [secondFactorThrottleKey(account.id)]
  ): Promise<Answer> {
    const failures = await Promise.all(keys.map(async (key) => (await this.store.recordLoginFailure(key, loginLockDuration, this.options.now())).failures))
    const most = Math.max(...failures)
    if (loginLockDuration(most) > 0) this.options.metrics.lockout('second_factor')
    logAuthEvent(facts, event, { accountId: account.id, clientAddress: facts.clientAddress, reason, failures: most })
    return error(401, say(facts, 'secondFactor.wrongCode'))
  }

  /** Ends the login the challenge held: tokens for its context, amr with 'otp', and the remembered-browser cookie when asked. */
  private async finishLogin (account: Account, challenge: SecondFactorChallenge, rememberBrowser: boolean, facts: RequestFacts): Promise<Answer> {
    const method = `${challenge.method as FirstFactor}+otp` as const
    const { passwordBreached, provesNoBrowser, ...context } = JSON.parse(challenge.context) as ChallengeContext
    const tokens = await this.options.completeLogin(account, context, method, facts, { provesBrowser: provesNoBrowser !== true })
    const answer = tokens.status === 200 && passwordBreached === true ? { ...tokens, body: { ...tokens.body, [PASSWORD_BREACHED_FIELD]: true } } : tokens
    if (answer.status !== 200 || !rememberBrowser || !this.options.settings.rememberBrowser) return answer
    logAuthEvent(facts, 'second-factor.browser-remembered', { accountId: account.id, clientAddress: facts.clientAddress })
    return { ...answer, cookies: [...answer.cookies ?? [], this.options.rememberedBrowsers.setCookie(account.id, this.options.now())] }
  }

  /** `second-factor/verify`: an authenticator code or a recovery code for a login's `code` challenge. */
  async verify (body: unknown, facts: RequestFacts): Promise<Answer> {
    const parsed = parseRequest(body, { codeRequired: true, recoveryAllowed: true })
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const { challenge: presented, code, rememberBrowser } = parsed.value
    if (presented === null) return error(400, say(facts, 'secondFactor.challengeRequired'))
    const found = await this.findChallenge(presented, 'code')
    if (found === null) {
      logAuthEvent(facts, 'second-factor.refused', { clientAddress: facts.clientAddress, reason: 'no-challenge' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    const { account, challenge } = found
    const locked = await this.locked(account, facts)
    if (locked !== null) return locked
    const factor = await this.store.findSecondFactor(account.id)
    if (factor?.enrolledAt == null) {
      // Removed by the admin command since the challenge was issued.
      logAuthEvent(facts, 'second-factor.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'not-enrolled' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    const now = this.options.now()
    const checked = await this.checkCode(account, factor, code!, facts)
    if (typeof checked !== 'string') return checked
    const via = checked
    if (!await this.store.consumeSecondFactorChallenge(challenge.challengeHash, now)) {
      logAuthEvent(facts, 'second-factor.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'challenge-spent' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    await this.store.clearLoginFailures(secondFactorThrottleKey(account.id))
    const left = via === 'recovery-code' ? await this.store.countUnusedRecoveryCodes(account.id) : undefined
    logAuthEvent(facts, 'second-factor.verified', { accountId: account.id, clientAddress: facts.clientAddress, via, recoveryCodesLeft: left })
    return await this.finishLogin(account, challenge, rememberBrowser, facts)
  }

  /** Whether the code is the account's, using it up: how it was given, or why not. */
  private async matchCode (account: Account, factor: SecondFactorRecord, code: NonNullable<CodeRequest['code']>): Promise<'totp' | 'recovery-code' | CodeMismatch> {
    const now = this.options.now()
    if ('totp' in code) {
      const step = matchingStep(this.options.secrets.open(factor.encryptedSecret, account.id), code.totp, now)
      if (step === null) return { mismatch: 'wrong-code' }
      return await this.store.acceptSecondFactorStep(account.id, step) ? 'totp' : { mismatch: 'replayed-code' }
    }
    return await this.store.useRecoveryCode(account.id, this.options.recoveryCodes.hash(code.recovery), now) ? 'recovery-code' : { mismatch: 'wrong-recovery-code' }
  }

  /** An enrolled account's authenticator or recovery code at sign-in: how it was given, or the refusal (counted on the code step's lock). */
  private async checkCode (account: Account, factor: SecondFactorRecord, code: NonNullable<CodeRequest['code']>, facts: RequestFacts): Promise<'totp' | 'recovery-code' | Answer> {
    const matched = await this.matchCode(account, factor, code)
    return typeof matched === 'string' ? matched : await this.wrongCode(account, facts, 'second-factor.failed', matched.mismatch)
  }

  /**
   * A code given again to prove the account for a change
   * (server/reference/account-changes/reauthentication.ts, which counts the failures on its own
   * locks: a token holder's wrong codes must not lock the owner's sign-in):
   * 'proven', 'wrong', or the key of why the body is refused.
   */
  /** Why a code given as a proof cannot be one (its shape alone), or null: asked before anything is checked. */
  codeShapeError (body: unknown): AnswerKey | null {
    const parsed = parseRequest(body, { codeRequired: true, recoveryAllowed: true })
    return parsed.ok ? null : parsed.error
  }

  async proveWithCode (account: Account, body: unknown): Promise<'proven' | 'wrong' | AnswerKey> {
    const parsed = parseRequest(body, { codeRequired: true, recoveryAllowed: true })
    if (!parsed.ok) return parsed.error
    const factor = await this.store.findSecondFactor(account.id)
    if (!this.options.settings.enabled || factor?.enrolledAt == null) return 'secondFactor.notEnrolled'
    return typeof await this.matchCode(account, factor, parsed.value.code!) === 'string' ? 'proven' : 'wrong'
  }

  /** `second-factor/remove`: turns the authenticator off, with a fresh proof; not where an organisation requires one. */
  async remove (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'second-factor.remove.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    if (await this.store.secondFactorRequiredFor(account.id)) {
      logAuthEvent(facts, 'second-factor.remove.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'required' })
      return error(409, say(facts, 'secondFactor.requiredByOrganization'))
    }
    if (!await this.store.removeSecondFactor(account.id)) return error(404, say(facts, 'secondFactor.notEnrolled'))
    // A browser that skipped codes would otherwise skip them again if the owner enrols anew.
    await this.store.forgetRememberedBrowsers(account.id, this.options.now())
    logAuthEvent(facts, 'second-factor.removed', { accountId: account.id, clientAddress: facts.clientAddress })
    this.options.changeNotices.tellOwner(account, { kind: 'second-factor-off' }, facts)
    return { status: 200, body: { success: say(facts, 'secondFactor.removed') } }
  }

  /** `second-factor/recovery-codes`: ten new recovery codes, with a fresh proof; the old ones stop working. */
  async renewRecoveryCodes (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'second-factor.recovery-codes.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const recoveryCodes = newRecoveryCodes()
    const hashes = recoveryCodes.map((recovery) => this.options.recoveryCodes.hash(normaliseRecoveryCode(recovery)!))
    if (!this.options.settings.enabled || !await this.store.replaceRecoveryCodes(account.id, hashes)) {
      return error(404, say(facts, 'secondFactor.notEnrolled'))
    }
    logAuthEvent(facts, 'second-factor.recovery-codes-renewed', { accountId: account.id, clientAddress: facts.clientAddress })
    this.options.changeNotices.tellOwner(account, { kind: 'recovery-codes' }, facts, { kind: 'recovery-codes' })
    return { status: 200, body: { recovery_codes: recoveryCodes } }
  }

  /** The account an enrolment call is for: its login's `enrol` challenge, or its auth token. */
  /**
   * Who enrols, and the keys its wrong codes count on: during a login, the account's code step
   * (whoever holds the challenge holds the password); outside one, the session's proofs, as
   * reauthentication counts them, so that a token holder's guesses lock his proofs and never the
   * owner's sign-in.
   */
  private async enrollee (presented: string | null, authToken: string | null, facts: RequestFacts, event: AuthEvent, need: OwnerNeed): Promise<
    { account: Account, challenge: SecondFactorChallenge | null, throttleKeys: readonly string[] } | Answer
  > {
    if (presented !== null) {
      const found = await this.findChallenge(presented, 'enrol')
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
    if (this.options.enrolmentSecrets.startedBy(this.options.secrets.open(factor.encryptedSecret, account.id), account.id, credential)) return null
    logAuthEvent(facts, 'second-factor.enrol.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'pending-elsewhere' })
    return error(409, say(facts, 'secondFactor.setupElsewhere'))
  }

  /** `second-factor/enrol/start`: the enrolment's pending secret and its otpauth:// URI for the authenticator app. */
  async enrolStart (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const parsed = parseRequest(body, { codeRequired: false, recoveryAllowed: false })
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const enrollee = await this.enrollee(parsed.value.challenge, authToken, facts, 'second-factor.enrol.refused', 'proof')
    if ('status' in enrollee) return enrollee
    const { account, challenge } = enrollee
    const credential = enrolmentCredential(parsed.value.challenge, authToken)
    const factor = await this.store.findSecondFactor(account.id)
    const conflict = this.pendingOfAnotherEnrolment(factor, account, credential, facts)
    if (conflict !== null) return conflict
    const secret = this.options.enrolmentSecrets.secretFor(account.id, credential)
    const now = this.options.now()
    // This enrolment's own secret, still pending (a retry, a second click), is answered again as it is.
    const resumed = factor !== null && factor.enrolledAt === null && factor.pendingExpiresAt > now
    // A login's enrolment ends with its challenge: its secret need not block another enrolment longer.
    const pendingUntil = Math.min(now + PENDING_SECRET_TTL_MS, challenge?.expiresAt ?? Infinity)
    if (!resumed && !await this.store.startSecondFactorEnrolment(account.id, this.options.secrets.seal(secret, account.id), pendingUntil)) {
      logAuthEvent(facts, 'second-factor.enrol.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'enrolled' })
      return error(409, say(facts, 'secondFactor.enrolled'))
    }
    logAuthEvent(facts, 'second-factor.enrol.started', { accountId: account.id, clientAddress: facts.clientAddress, duringLogin: challenge !== null, resumed })
    return { status: 200, body: { secret, otpauth_uri: totpFor(secret, this.options.productName, account.email).toString() } }
  }

  /** `second-factor/enrol/confirm`: the first code stores the secret; ten recovery codes, once (and tokens during a login). */
  async enrolConfirm (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const parsed = parseRequest(body, { codeRequired: true, recoveryAllowed: false })
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    // The proof was asked for at the start; the pending secret is known only to the app that scanned it.
    const enrollee = await this.enrollee(parsed.value.challenge, authToken, facts, 'second-factor.enrol.refused', 'session')
    if ('status' in enrollee) return enrollee
    const { account, challenge, throttleKeys } = enrollee
    const locked = await this.locked(account, facts, throttleKeys)
    if (locked !== null) return locked
    const factor = await this.store.findSecondFactor(account.id)
    const now = this.options.now()
    if (factor?.enrolledAt != null) return error(409, say(facts, 'secondFactor.enrolled'))
    if (factor === null || factor.pendingExpiresAt <= now) return error(400, say(facts, 'secondFactor.setupExpired'))
    const conflict = this.pendingOfAnotherEnrolment(factor, account, enrolmentCredential(parsed.value.challenge, authToken), facts)
    if (conflict !== null) return conflict
    const code = parsed.value.code as { totp: string }
    const step = matchingStep(this.options.secrets.open(factor.encryptedSecret, account.id), code.totp, now)
    if (step === null) return await this.wrongCode(account, facts, 'second-factor.enrol.failed', 'wrong-code', throttleKeys)
    const recoveryCodes = newRecoveryCodes()
    const hashes = recoveryCodes.map((recovery) => this.options.recoveryCodes.hash(normaliseRecoveryCode(recovery)!))
    if (!await this.store.confirmSecondFactorEnrolment(account.id, step, hashes, now)) {
      // Another confirmation got there first, or the secret expired just now.
      return error(409, say(facts, 'secondFactor.enrolled'))
    }
    await Promise.all(throttleKeys.map(async (key) => await this.store.clearLoginFailures(key)))
    logAuthEvent(facts, 'second-factor.enrolled', { accountId: account.id, clientAddress: facts.clientAddress, duringLogin: challenge !== null })
    // During a login too (an organisation's requirement): whoever had the password chose the app; the link removes it.
    this.options.changeNotices.tellOwner(account, { kind: 'second-factor-on' }, facts, { kind: 'second-factor', enrolledAt: now })
    if (challenge === null) return { status: 200, body: { recovery_codes: recoveryCodes } }
    if (!await this.store.consumeSecondFactorChallenge(challenge.challengeHash, now)) {
      // Enrolled all the same: the next sign-in asks for a code.
      logAuthEvent(facts, 'second-factor.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'challenge-spent' })
      return error(401, say(facts, NO_CHALLENGE))
    }
    const answer = await this.finishLogin(account, challenge, parsed.value.rememberBrowser, facts)
    return answer.status === 200 ? { ...answer, body: { ...answer.body, recovery_codes: recoveryCodes } } : answer
  }
}
