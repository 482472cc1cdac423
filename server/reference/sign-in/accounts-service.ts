import { randomBytes, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { PASSWORD_BREACHED_FIELD } from '../../../common/breached-password.js'
import { EMAIL_NOT_VERIFIED_REASON } from '../../../common/page-notices.js'
import type { AccountClaims } from '../account-changes/account-claims.js'
import { errorAnswer as error, successAnswer as success, type Answer, type EmailAudience, type RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import type { BreachCheck } from '../breached-passwords/breach-check.js'
import type { BrowserNotices } from '../known-browsers/browser-notices.js'
import type { ChangeNotices } from '../account-changes/change-notices.js'
import type { RecentFactors } from '../account-changes/recent-factors.js'
import type { UndoChange } from '../account-changes/undo-change.js'
import { RESET_TOKEN_TTL_MS } from '../emails/email-links.js'
import { redeemPasswordLink } from '../password-reset/password-links.js'
import type { EmailVerification } from '../registration/email-verification.js'
import { emailMessages } from '../emails/email-messages.js'
import { passwordResetEmail } from '../emails/password-reset.js'
import { breachedPasswordEmail } from '../emails/breached-password.js'
import { inPageLanguage } from '../languages/page-language.js'
import { registrationAttemptEmail } from '../emails/registration-attempt.js'
import type { GoogleCredential, GoogleTokenVerifier } from '../google/google-id-token.js'
import { sendAfterAnswering, type Mailer } from '../emails/mailer.js'
import {
  accountDelay,
  accountThrottleKey,
  addressThrottleKey,
  browserThrottleKey,
  lockKey,
  loginLockDuration,
  waitMessage
} from './login-throttles.js'
import { proofOfSignIn, type FreshProofs } from '../account-changes/fresh-proofs.js'
import { PasswordWorkRefused, type HashGate } from '../passwords/hash-gate.js'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import { hashPassword, needsRehash, verifyPassword, type ScryptParameters } from '../passwords/passwords.js'
import type { FirstFactor, FirstFactorProof, SecondFactorGate } from '../second-factor/second-factors.js'
import { REMEMBERED_BROWSER_SESSION, SECOND_FACTOR_REQUIRED_REASON } from '../second-factor/second-factor-requirement.js'
import type { Account, AccountStore } from '../store/account-store.js'
import { hashToken, newOpaqueToken, type AuthenticationMethod, type LoginContext, type TokenScope, type TokenService } from '../sessions/tokens.js'
import {
  parseEmail,
  parsePasswordChange,
  parsePasswordLogin,
  parseRegistration,
  type NewPasswordRules,
  type Parsed
} from '../http/validation.js'

/** At most 3 reset emails are sent to one account per hour. */
export const RESET_EMAILS_PER_HOUR = 3
/** The owner of a breached password is emailed about it at most once in 30 days (the page says so at every login). */
export const BREACHED_PASSWORD_NOTICE_INTERVAL_MS = 30 * 24 * 60 * 60 * 1000
/** The owner of an address hears of registration attempts on it at most once an hour. */
export const REGISTRATION_ATTEMPT_NOTICE_INTERVAL_MS = 60 * 60 * 1000
/** With REQUIRE_VERIFIED_EMAIL, a new address and a taken one get this same answer. */
const REGISTERED_CHECK_INBOX: AnswerKey = 'register.checkInbox'

export interface AccountsServiceOptions {
  readonly store: AccountStore
  readonly tokens: TokenService
  readonly mailer: Mailer
  readonly verifyGoogleToken: GoogleTokenVerifier
  readonly publicUrl: string
  readonly productName: string
  /** scrypt parameters for new hashes (OWASP's unless PASSWORD_HASH_COST says otherwise). */
  readonly passwordParameters: ScryptParameters
  /** REQUIRE_VERIFIED_EMAIL. */
  readonly requireVerifiedEmail: boolean
  readonly verification: EmailVerification
  readonly browserNotices: BrowserNotices
  /** Tells the owner her password changed. */
  readonly changeNotices: ChangeNotices
  /** What a completed reset lists for review (docs/account-changes.md). */
  readonly recentFactors: RecentFactors
  /** Removes what a change's email announced, when its "this wasn't me" link brought the new password. */
  readonly undoChange: UndoChange
  readonly claims: AccountClaims
  /** The bound on concurrent password hashing (server/reference/passwords/hash-gate.ts) that every hash and check goes through. */
  readonly hashGate: HashGate
  /** Times each hash and check, and counts the locks failures set. */
  readonly metrics: Pick<ReferenceMetrics, 'timePasswordWork' | 'lockout'>
  /** PASSWORD_MIN_LENGTH. */
  readonly passwordMinLength: number
  /** Asks the breach corpus about new passwords and logins' (docs/breached-passwords.md); null: BREACHED_PASSWORDS=off. */
  readonly breachCheck: BreachCheck | null
  /** Asks for a second factor after a password or Google sign-in when one is due; null: never. */
  readonly secondFactor: SecondFactorGate | null
  /** Records the proof each sign-in makes in its browser (docs/account-changes.md). */
  readonly proofs: FreshProofs
  readonly now: () => number
}

/**
 * The reference accounts service's behaviour, independent of HTTP: each
 * method takes a request body and answers with a status and a JSON body.
 */
export class AccountsService {
  /** A real hash of nothing, checked when an email is unknown so that both answers take as long. */
  private readonly decoyHash: Promise<string>

  constructor (private readonly options: AccountsServiceOptions) {
    // Through the gate, which learns from it how long a hash takes here.
    this.decoyHash = options.hashGate.run(() => this.timedHash(randomBytes(16).toString('hex')))
  }

  /** One hash, timed for the metrics (the gate's wait is not in it). */
  private timedHash (password: string): Promise<string> {
    return this.options.metrics.timePasswordWork('hash', () => hashPassword(password, this.options.passwordParameters))
  }

  /** One check, timed for the metrics. */
  private timedVerify (password: string, stored: string): Promise<boolean> {
    return this.options.metrics.timePasswordWork('verify', () => verifyPassword(password, stored))
  }

  /** Hashes through the gate: refused (PasswordWorkRefused) when it is full or the client has gone. */
  private hash (password: string, signal: AbortSignal): Promise<string> {
    return this.options.hashGate.run(() => this.timedHash(password), signal)
  }

  /**
   * Whether `password` is the account's, checked through the gate as a login's
   * is (false for an account without one): a proof before a change.
   */
  async checkPassword (account: Account, password: string, signal: AbortSignal): Promise<boolean> {
    return account.passwordHash !== null && await this.verify(password, account.passwordHash, signal)
  }

  /** Checks a password through the gate, as hash() does. */
  private verify (password: string, stored: string, signal: AbortSignal): Promise<boolean> {
    return this.options.hashGate.run(() => this.timedVerify(password, stored), signal)
  }

  private get store (): AccountStore { return this.options.store }

  /** A new password's rules: the configured minimum, and the product's name as a context word. */
  private get newPasswordRules (): NewPasswordRules {
    return { minLength: this.options.passwordMinLength, contextWords: [this.options.productName] }
  }

  /**
   * The breach corpus's refusal of a new password, asked while it is hashed
   * (a refusal wastes one hash; a password let through waits for one call
   * less): the hash, or the refusal's answer.
   */
  private async hashUnlessBreached (password: string, facts: RequestFacts): Promise<{ readonly hash: string } | { readonly refused: Answer }> {
    const [refusal, hash] = await Promise.all([
      this.options.breachCheck?.refusalOfNewPassword(password) ?? null,
      this.hash(password, facts.signal)
    ])
    if (refusal === null) return { hash }
    const refused = error(refusal.status, say(facts, refusal.text))
    return { refused: refusal.retryAfterSeconds === undefined ? refused : { ...refused, headers: { 'retry-after': String(refusal.retryAfterSeconds) } } }
  }

  /**
   * Email and password login (also local-network `/authenticate`, which
   * passes its `scope`: the login's tokens, and its second factor's
   * challenge, then work only there).
   */
  async passwordLogin (body: unknown, facts: RequestFacts, { scope }: { readonly scope?: TokenScope } = {}): Promise<Answer> {
    const parsed = parsePasswordLogin(body)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const { email, password } = parsed.value
    const context: LoginContext = scope === undefined ? parsed.value.context : { ...parsed.value.context, scope }
    const account = await this.store.findAccountByEmail(email)
    const knownBrowserHash = await this.options.browserNotices.knownBrowserHash(account, facts)
    const throttleKey = lockKey(email, { clientAddress: facts.clientAddress, knownBrowserHash })
    const accountKey = accountThrottleKey(email)

    const throttle = await this.store.readLoginThrottle(throttleKey)
    if (throttle.lockedUntil > this.options.now()) {
      logAuthEvent(facts, 'login.throttled', { email, clientAddress: facts.clientAddress })
      return error(429, say(facts, waitMessage(throttle.lockedUntil, this.options.now())))
    }
    // Failures from everywhere slow the account down, never shut it: see login-throttles.ts.
    if (knownBrowserHash === null) {
      const delay = accountDelay((await this.store.readLoginThrottle(accountKey)).failures)
      if (delay > 0) {
        logAuthEvent(facts, 'login.slowed', { email, clientAddress: facts.clientAddress, delayMs: delay })
        await sleep(delay, undefined, { signal: facts.signal }).catch(() => { throw new PasswordWorkRefused('client-gone') })
      }
    }

    // An unknown email's check goes through the gate as a real one does: the same wait, the same refusals.
    const verified = account?.passwordHash != null
      ? await this.verify(password, account.passwordHash, facts.signal)
      : await this.verify(password, await this.decoyHash, facts.signal).then(() => false)

    // Attempts running alongside this one all passed the check above. If
    // their failures reached a lock meanwhile, this attempt answers as a
    // locked pair does, right password or not: otherwise guesses sent in
    // parallel would get around the lock.
    if (account === null || !verified) {
      const now = this.options.now()
      const failure = await this.store.recordLoginFailure(throttleKey, loginLockDuration, now)
      const accountWide = await this.store.recordLoginFailure(accountKey, () => 0, now)
      // Counted once each: the failure that set (or doubled) the pair's lock, the one that started the slow-down.
      if (loginLockDuration(failure.failures) > 0) this.options.metrics.lockout('address')
      if (accountDelay(accountWide.failures) > 0 && accountDelay(accountWide.failures - 1) === 0) this.options.metrics.lockout('account_slowdown')
      logAuthEvent(facts, 'login.failed', {
        email, clientAddress: facts.clientAddress, failures: failure.failures, accountFailures: accountWide.failures
      })
      const othersFailed = failure.failures - 1
      return othersFailed > throttle.failures && loginLockDuration(othersFailed) > 0
        ? error(429, say(facts, waitMessage(failure.lockedUntil, this.options.now())))
        : error(401, say(facts, 'login.invalidCredentials'))
    }
    const current = await this.store.readLoginThrottle(throttleKey)
    if (current.failures > throttle.failures && loginLockDuration(current.failures) > 0) {
      logAuthEvent(facts, 'login.throttled', { email, clientAddress: facts.clientAddress })
      return error(429, say(facts, waitMessage(current.lockedUntil, this.options.now())))
    }
    // Asked only now, for the right password (a wrong one is never sent, nor counted), and
    // while the rest of the login goes on: it waits at most the range call's timeout.
    const breached = this.options.breachCheck?.breachedAtLogin(password) ?? Promise.resolve(false)
    await this.store.clearLoginFailures(throttleKey)
    let passwordHash = account.passwordHash!
    if (needsRehash(passwordHash, this.options.passwordParameters)) {
      // The new hash can wait for a calmer moment (the next login): refused by the gate, it is skipped.
      const rehashed = await this.hash(password, facts.signal).catch((error: unknown) => {
        if (error instanceof PasswordWorkRefused) return null
        throw error
      })
      if (rehashed !== null) {
        passwordHash = rehashed
        await this.store.updatePasswordHash(account.id, passwordHash)
      }
    }
    // Only after the right password: the refusal tells that the account exists.
    const unverified = this.refusalIfUnverified(account, facts)
    // Its browser is not recorded: whoever knows the password without the address would then be a
    // known browser, spared the new-browser email once the owner verifies.
    if (unverified !== null) return unverified
    const secondFactor = await this.secondFactorStep(account, context, 'pwd', facts, breached)
    if (secondFactor !== null && secondFactor.status !== 200) return secondFactor
    if (secondFactor !== null) {
      // The challenge record carries the flag on to the answer with the tokens (server/reference/second-factor/second-factors.ts).
      if (await breached) this.auditBreachedLogin(account, facts)
      // As below: a reset during this login's hashing leaves it nothing to continue.
      const stored = (await this.store.findAccountById(account.id))?.passwordHash ?? null
      if (stored !== passwordHash && (stored === null || !await this.timedVerify(password, stored))) return error(401, say(facts, 'login.invalidCredentials'))
      const cookie = await this.options.browserNotices.signedIn(account, facts)
      return cookie === null ? secondFactor : { ...secondFactor, cookies: [...secondFactor.cookies ?? [], cookie] }
    }
    const answer = await this.completeLogin(account, context, 'pwd', facts)
    if (answer.status !== 200) return answer
    // A claim (server/reference/account-changes/account-claims.ts) or a reset that ran while this login hashed has revoked every
    // session and removed or changed the password: the token just issued would outlive them. (A
    // concurrent rehash also changes the hash, but the password still matches it.)
    const stored = (await this.store.findAccountById(account.id))?.passwordHash ?? null
    // Without the gate: rare (the hash changed during this very login), and refusing here would strand the token.
    if (stored !== passwordHash && (stored === null || !await this.timedVerify(password, stored))) {
      await this.options.tokens.revoke(String(answer.body.refresh))
      logAuthEvent(facts, 'login.failed', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'password changed meanwhile' })
      return error(401, say(facts, 'login.invalidCredentials'))
    }
    // Tokens for an enrolled account mean a remembered browser skipped the code: the hint spares
    // its owner the page's offer to set up a second factor they have (docs/second-factor.md).
    const enrolled = await this.options.secondFactor?.isEnrolled(account.id) === true
    const passwordBreached = await breached
    if (passwordBreached) this.auditBreachedLogin(account, facts)
    const signedIn = enrolled || passwordBreached
      ? { ...answer, body: { ...answer.body, ...(enrolled ? { second_factor_enrolled: true } : {}), ...(passwordBreached ? { [PASSWORD_BREACHED_FIELD]: true } : {}) } }
      : answer
    const cookie = await this.options.browserNotices.signedIn(account, facts)
    return cookie === null ? signedIn : { ...signedIn, cookies: [...signedIn.cookies ?? [], cookie] }
  }

  /**
   * A login whose password is in the breach corpus: signed in, told to change it (by the page, and
   * by email at most once in BREACHED_PASSWORD_NOTICE_INTERVAL_MS), and recorded.
   */
  private auditBreachedLogin (account: Account, facts: RequestFacts): void {
    logAuthEvent(facts, 'login.password-breached', { accountId: account.id, clientAddress: facts.clientAddress })
    sendAfterAnswering(facts.log, 'breached password', () => this.tellOwnerOfBreachedPassword(account, facts))
  }

  private async tellOwnerOfBreachedPassword (account: Account, facts: RequestFacts): Promise<void> {
    if (!await this.store.takeNoticeSlot(account.id, 'password-breached', this.options.now(), BREACHED_PASSWORD_NOTICE_INTERVAL_MS)) return
    const delivery = await this.options.mailer.send(breachedPasswordEmail({
      to: account.email,
      productName: this.options.productName,
      resetPageUrl: inPageLanguage(`${this.options.publicUrl}/?view=resetPassword`, facts.locale),
      messages: emailMessages(facts.locale)
    }))
    logAuthEvent(facts, 'password.breach-notice-sent', { accountId: account.id, ...delivery })
  }

  /**
   * The requested organisations the account belongs to ([] when none was
   * requested); null, logged, when it belongs to none of them.
   */
  private async allowedOrganizations (account: Account, requested: LoginContext, facts: RequestFacts): Promise<readonly string[] | null> {
    if (requested.organizations.length === 0) return []
    const memberships = new Set(await this.store.listMemberships(account.id))
    const organizations = requested.organizations.filter((organization) => memberships.has(organization))
    if (organizations.length > 0) return organizations
    logAuthEvent(facts, 'login.refused-organization', { accountId: account.id, clientAddress: facts.clientAddress })
    return null
  }

  /**
   * The challenge answer when a second factor is due; a 403 first when the
   * login names organisations the account is not in (no code is asked for a
   * login that cannot succeed); null when tokens may be issued now.
   */
  private async secondFactorStep (
    account: Account, context: LoginContext, method: FirstFactor, facts: RequestFacts, passwordBreached?: Promise<boolean>, firstFactor?: FirstFactorProof
  ): Promise<Answer | null> {
    const gate = this.options.secondFactor
    if (gate === null) return null
    if (await this.allowedOrganizations(account, context, facts) === null) return error(403, say(facts, 'login.notAMember'))
    return await gate.challengeIfDue(account, context, method, facts, passwordBreached, firstFactor)
  }

  /**
   * With REQUIRE_VERIFIED_EMAIL, the 403 (with its reason, which the page offers a new link for) that
   * ends a login whose first factor was right, for an address not verified yet; null otherwise.
   */
  refusalIfUnverified (account: Account, facts: RequestFacts): Answer | null {
    if (!this.options.requireVerifiedEmail || account.emailVerifiedAt !== null) return null
    logAuthEvent(facts, 'login.refused-unverified', { accountId: account.id, clientAddress: facts.clientAddress })
    return error(403, say(facts, 'login.emailNotVerified'), { reason: EMAIL_NOT_VERIFIED_REASON })
  }

  /** Issues tokens, if the account belongs to one of the allowed organisations (when any are given). */
  async completeLogin (
    account: Account, requested: LoginContext, method: AuthenticationMethod, facts: RequestFacts, { provesBrowser = true }: FirstFactorProof = {}
  ): Promise<Answer> {
    const organizations = await this.allowedOrganizations(account, requested, facts)
    if (organizations === null) return error(403, say(facts, 'login.notAMember'))
    // A remembered browser skipped the code (server/reference/second-factor/second-factors.ts): the session keeps that, for an
    // organisation's requirement to count it as met at refresh (server/reference/second-factor/second-factor-requirement.ts).
    const remembered = (method === 'pwd' || method === 'google') && await this.options.secondFactor?.remembersBrowser(account.id, facts) === true
    const context = remembered ? { ...requested, organizations, ...REMEMBERED_BROWSER_SESSION } : { ...requested, organizations }
    const session = { familyId: randomUUID(), signedInAt: this.options.now() }
    const tokens = await this.options.tokens.issue(account, context, method, session)
    // The sign-in is this browser's proof of the account, in this session, for the next few minutes (a passkey upgrade, a second factor).
    // Not a Google token the page did not ask for: it may have been read from another product's page.
    const proofCookie = provesBrowser ? await this.options.proofs.record({ accountId: account.id, sessionId: session.familyId }, proofOfSignIn(method), facts, { atSignIn: true }) : null
    const event = ({
      pwd: 'login.succeeded',
      'pwd+otp': 'login.succeeded',
      google: 'google.login.succeeded',
      'google+otp': 'google.login.succeeded',
      sso: 'sso.login.succeeded',
      hwk: 'passkey.login.succeeded'
    } as const)[method]
    logAuthEvent(facts, event, { accountId: account.id, clientAddress: facts.clientAddress, ...(method.endsWith('+otp') ? { secondFactor: true } : {}) })
    return { status: 200, body: { ...tokens }, ...proofCookie === null ? {} : { cookies: [proofCookie] } }
  }

  /**
   * Creates a password account and sends a link to verify its address. With
   * REQUIRE_VERIFIED_EMAIL, a taken address answers exactly as a new one
   * (same text, status, cookie, and the same work before answering: the
   * password is hashed either way) and its owner is emailed instead; without
   * it, the spec's flow says the address is taken.
   */
  async register (body: unknown, facts: RequestFacts): Promise<Answer> {
    const parsed = parseRegistration(body, this.newPasswordRules)
    if (!parsed.ok) {
      logAuthEvent(facts, 'register.refused', { clientAddress: facts.clientAddress, reason: 'invalid' })
      return error(400, say(facts, parsed.error))
    }
    const { email, password, firstName, lastName } = parsed.value
    // Before the address is looked at: a taken address and a new one are refused alike.
    const hashed = await this.hashUnlessBreached(password, facts)
    if ('refused' in hashed) {
      logAuthEvent(facts, 'register.refused', { clientAddress: facts.clientAddress, reason: hashed.refused.status === 400 ? 'breached' : 'breach-check-unavailable' })
      return hashed.refused
    }
    const result = await this.store.createAccount({
      email, firstName, lastName, passwordHash: hashed.hash, googleSubject: null
    })
    const browserId = facts.browser === null ? null : this.options.browserNotices.browserId(facts.browser)
    const cookies = browserId === null ? [] : [this.options.browserNotices.setCookie(browserId)]
    const { requireVerifiedEmail } = this.options
    if ('conflict' in result) {
      if (!requireVerifiedEmail && await this.isRepeatedRegistration(email, password, facts)) {
        logAuthEvent(facts, 'register.repeated', { email, clientAddress: facts.clientAddress })
        return success(say(facts, 'register.done'))
      }
      logAuthEvent(facts, 'register.refused', { email, clientAddress: facts.clientAddress, reason: 'exists' })
      if (!requireVerifiedEmail) return error(409, say(facts, 'register.exists'))
      sendAfterAnswering(facts.log, 'registration attempt', () => this.tellOwnerOfAttempt(email, facts))
      return { ...success(say(facts, REGISTERED_CHECK_INBOX)), cookies }
    }
    const account = result.created
    logAuthEvent(facts, 'register.succeeded', { accountId: account.id, clientAddress: facts.clientAddress })
    sendAfterAnswering(facts.log, 'verification', async () => {
      if (browserId !== null) await this.options.browserNotices.registeredFrom(account, browserId)
      await this.options.verification.sendLink(account, facts)
    })
    return { ...success(say(facts, requireVerifiedEmail ? REGISTERED_CHECK_INBOX : 'register.done')), cookies }
  }

  /**
   * A registration tried again with the same address and password, while the account it made is
   * still unverified: the first was stored, but its answer was lost (a timeout, a 504). It succeeds
   * again rather than saying the address is taken; nothing is created twice. Only whoever holds the
   * password learns anything, and the spec's flow says the address is taken anyway. Its browser
   * is not recorded: knowing a password is not holding the address (server/reference/registration/email-verification.ts).
   */
  private async isRepeatedRegistration (email: string, password: string, facts: RequestFacts): Promise<boolean> {
    const existing = await this.store.findAccountByEmail(email)
    return existing !== null && existing.emailVerifiedAt === null && await this.checkPassword(existing, password, facts.signal)
  }

  /** "Someone tried to register with your address", at most once an hour per account. */
  private async tellOwnerOfAttempt (email: string, facts: RequestFacts): Promise<void> {
    const account = await this.store.findAccountByEmail(email)
    if (account === null) return
    if (!await this.store.takeNoticeSlot(account.id, 'register-attempt', this.options.now(), REGISTRATION_ATTEMPT_NOTICE_INTERVAL_MS)) {
      logAuthEvent(facts, 'register.attempt-notice-suppressed', { accountId: account.id })
      return
    }
    const delivery = await this.options.mailer.send(registrationAttemptEmail({
      to: account.email, productName: this.options.productName, pageUrl: inPageLanguage(`${this.options.publicUrl}/`, facts.locale), messages: emailMessages(facts.locale)
    }))
    logAuthEvent(facts, 'register.attempt-notice-sent', { accountId: account.id, ...delivery })
  }

  /**
   * Answers the same whether or not the account exists, and sends the email
   * after answering, so that neither the text nor the timing tells.
   */
  async requestPasswordReset (body: unknown, facts: RequestFacts): Promise<Answer> {
    const email = parseEmail((body as { email?: unknown } | null)?.email)
    if (!email.ok) return error(400, say(facts, email.error))
    logAuthEvent(facts, 'reset.requested', { email: email.value, clientAddress: facts.clientAddress })
    sendAfterAnswering(facts.log, 'password reset', () => this.sendResetEmail(email.value, facts))
    return success(say(facts, 'resetPassword.sent'))
  }

  private async sendResetEmail (email: string, audit: EmailAudience): Promise<void> {
    const account = await this.store.findAccountByEmail(email)
    if (account === null) return
    const now = this.options.now()
    if (await this.store.countResetTokensSince(account.id, now - 60 * 60 * 1000) >= RESET_EMAILS_PER_HOUR) {
      logAuthEvent(audit, 'reset.suppressed', { accountId: account.id, reason: 'hourly limit' })
      return
    }
    const token = newOpaqueToken()
    await this.store.insertResetToken(hashToken(token), account.id, now + RESET_TOKEN_TTL_MS)
    const link = inPageLanguage(`${this.options.publicUrl}/?view=setPassword&token=${token}`, audit.locale)
    const delivery = await this.options.mailer.send(passwordResetEmail({
      to: account.email, link, productName: this.options.productName, validMinutes: RESET_TOKEN_TTL_MS / 60_000, messages: emailMessages(audit.locale)
    }))
    // The log says where the email went, never the link: it holds a live token.
    logAuthEvent(audit, 'reset.email-sent', { accountId: account.id, ...delivery })
  }

  /** Completes a reset: a new password, the account's links used up, every session of the account ended. */
  async completePasswordReset (body: unknown, facts: RequestFacts): Promise<Answer> {
    const parsed = parsePasswordChange(body, this.newPasswordRules)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    // Before the link is used: refused, the visitor chooses another password with the same link.
    const hashed = await this.hashUnlessBreached(parsed.value.password, facts)
    if ('refused' in hashed) {
      logAuthEvent(facts, 'reset.refused', { clientAddress: facts.clientAddress, reason: hashed.refused.status === 400 ? 'breached' : 'breach-check-unavailable' })
      return hashed.refused
    }
    const passwordHash = hashed.hash
    const now = this.options.now()
    const redeemed = await redeemPasswordLink(this.store, parsed.value.token, now)
    if (redeemed === null) {
      logAuthEvent(facts, 'reset.refused', { clientAddress: facts.clientAddress })
      return error(400, say(facts, 'resetPassword.linkRefused'))
    }
    const { accountId } = redeemed
    // The link came by email: whoever opened it holds the address. Until now nobody had shown that,
    // so nothing set up before (a squatter's passkey or authenticator app) stays (server/reference/account-changes/account-claims.ts).
    const beforeReset = await this.store.findAccountById(accountId)
    if (beforeReset !== null) await this.options.claims.claimIfUnverified(beforeReset, { via: 'emailed-link' }, facts)
    await this.store.updatePasswordHash(accountId, passwordHash)
    // Another link sent earlier would otherwise still change the new password.
    await this.store.voidResetTokens(accountId, now)
    await this.store.revokeAccountRefreshTokens(accountId, now)
    await this.options.proofs.voidAll(accountId)
    // A sign-in with the old password, waiting for its code or enrolment, ends too.
    await this.store.voidSecondFactorChallenges(accountId)
    // The second factor stays (docs/second-factor.md), but no browser is spared its code step any more
    // (by the clock the remembered-browser cookies are issued by).
    await this.store.forgetRememberedBrowsers(accountId, this.options.now())
    const account = await this.store.findAccountById(accountId)
    if (account !== null) await this.clearLocksOfResetter(account.email, facts)
    logAuthEvent(facts, 'reset.completed', { accountId, clientAddress: facts.clientAddress, via: redeemed.via })
    // "This wasn't me": what the change's email announced goes too, before the list below is made.
    if (redeemed.via === 'undo-change') await this.options.undoChange.undoAnnounced(redeemed.link, facts)
    if (account !== null) this.options.changeNotices.tellOwner(account, { kind: 'password' }, facts)
    // The passkeys and app added lately, for the owner to remove what was not hers.
    return { status: 200, body: { success: say(facts, 'resetPassword.done'), ...await this.options.recentFactors.review(accountId) } }
  }

  /**
   * Whoever completed a reset holds the address: the locks on her address
   * range and browser are lifted, and the account-wide count starts again
   * (guesses at the old password are worth nothing now). Locks elsewhere stay.
   */
  private async clearLocksOfResetter (email: string, facts: RequestFacts): Promise<void> {
    await this.store.clearLoginFailures(accountThrottleKey(email))
    await this.store.clearLoginFailures(addressThrottleKey(email, facts.clientAddress))
    const browserHash = this.options.browserNotices.presentedBrowserHash(facts)
    if (browserHash !== null) await this.store.clearLoginFailures(browserThrottleKey(email, browserHash))
  }

  /** Google login: the ID token decides who this is; the account must exist already. */
  async googleLogin (credential: GoogleCredential, context: Parsed<LoginContext>, facts: RequestFacts): Promise<Answer> {
    if (!context.ok) return error(400, say(facts, context.error))
    const verification = await this.options.verifyGoogleToken(credential)
    if ('refused' in verification) {
      logAuthEvent(facts, 'google.login.failed', { clientAddress: facts.clientAddress, reason: verification.refused })
      return error(401, say(facts, 'google.loginFailed'))
    }
    const { subject, email, boundToPage } = verification.identity
    const account = await this.store.findAccountByGoogleSubject(subject) ?? await this.claimForGoogle(email, subject, facts)
    if (account === null) {
      logAuthEvent(facts, 'google.login.failed', { email, reason: 'no account' })
      return error(404, say(facts, 'google.noAccount'))
    }
    const secondFactor = await this.secondFactorStep(account, context.value, 'google', facts, undefined, { provesBrowser: boundToPage })
    return secondFactor ?? await this.completeLogin(account, context.value, 'google', facts, { provesBrowser: boundToPage })
  }

  /**
   * Google registration creates an account tied to the Google subject. An
   * existing account with the same address is tied to it only while that
   * address was never verified (it is then claimed: see server/reference/account-changes/account-claims.ts);
   * a verified one is not linked on an email match alone.
   */
  async googleRegister (credential: GoogleCredential, facts: RequestFacts): Promise<Answer> {
    const verification = await this.options.verifyGoogleToken(credential)
    if ('refused' in verification) {
      logAuthEvent(facts, 'google.register.failed', { clientAddress: facts.clientAddress, reason: verification.refused })
      return error(401, say(facts, 'google.registerFailed'))
    }
    const { subject, email } = verification.identity
    // Google vouches for the address: the verifier refuses a token whose email_verified is not true.
    const result = await this.store.createAccount({
      email, firstName: null, lastName: null, passwordHash: null, googleSubject: subject, emailVerifiedAt: this.options.now()
    })
    if ('conflict' in result) {
      if (result.conflict === 'email' && await this.claimForGoogle(email, subject, facts) !== null) {
        return success(say(facts, 'google.claimed'))
      }
      logAuthEvent(facts, 'google.register.failed', { email, reason: result.conflict })
      return error(409, say(facts, result.conflict === 'google-subject' ? 'google.alreadyRegistered' : 'google.emailTaken'))
    }
    logAuthEvent(facts, 'google.register.succeeded', { accountId: result.created.id, clientAddress: facts.clientAddress })
    return success(say(facts, 'google.registered'))
  }

  /**
   * An account made with a password for `email`, never verified, passes to
   * whoever Google vouches for (server/reference/account-changes/account-claims.ts): the account, now tied to
   * `subject`, or null when there is none to claim.
   */
  private async claimForGoogle (email: string, subject: string, facts: RequestFacts): Promise<Account | null> {
    const existing = await this.store.findAccountByEmail(email)
    if (existing === null || existing.emailVerifiedAt !== null || existing.googleSubject !== null) return null
    const claimed = await this.options.claims.claimIfUnverified(existing, { via: 'google', googleSubject: subject }, facts)
    // Verified by someone else meanwhile: then it is not this Google account's.
    return claimed.googleSubject === subject ? claimed : null
  }

  /** Token refresh; `scope`: the listener's (local-network mode's own), which refreshes only its own tokens. */
  async refresh (refreshToken: unknown, facts: RequestFacts, scope?: TokenScope): Promise<Answer> {
    if (typeof refreshToken !== 'string' || refreshToken.length > 200) return error(400, say(facts, 'session.refreshRequired'))
    const outcome = await this.options.tokens.rotate(refreshToken, {
      secondFactors: this.options.secondFactor !== null, signal: facts.signal, ...(scope === undefined ? {} : { scope })
    })
    if ('unspent' in outcome) {
      // Nobody reads this answer; a line without the token, as for a password check the gate refused.
      facts.log.info({ reason: outcome.unspent }, 'refresh not made: the client went away, its token is left unspent')
      return { ...error(503, say(facts, 'failure.busy')), headers: { 'retry-after': '1' } }
    }
    if ('refused' in outcome) {
      logAuthEvent(facts, outcome.refused === 'reused' ? 'token.reuse-detected' : 'token.refused', {
        clientAddress: facts.clientAddress, reason: outcome.refused
      })
      return outcome.refused === 'second-factor-required'
        ? error(401, say(facts, 'session.secondFactorRequired'), { reason: SECOND_FACTOR_REQUIRED_REASON })
        : error(401, say(facts, 'session.ended'))
    }
    logAuthEvent(facts, 'token.refreshed', { accountId: outcome.accountId, clientAddress: facts.clientAddress })
    return { status: 200, body: { ...outcome.tokens } }
  }

  async revoke (refreshToken: unknown, facts: RequestFacts): Promise<Answer> {
    if (typeof refreshToken !== 'string' || refreshToken.length > 200) return error(400, say(facts, 'session.refreshRequired'))
    await this.options.tokens.revoke(refreshToken)
    logAuthEvent(facts, 'token.revoked', { clientAddress: facts.clientAddress })
    return success(say(facts, 'session.loggedOut'))
  }
}
