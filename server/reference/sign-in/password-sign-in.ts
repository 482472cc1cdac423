import { PASSWORD_BREACHED_FIELD } from '../../../common/breached-passwords/breached-password.js'
import { logAuthEvent } from '../audit/audit.js'
import type { BreachCheck } from '../breached-passwords/breach-check.js'
import type { BreachNotices } from '../breached-passwords/breach-notices.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { parsePasswordLogin } from '../http/validation.js'
import type { BrowserNotices } from '../known-browsers/browser-notices.js'
import { say } from '../languages/answer-texts.js'
import { PasswordWorkRefused } from '../passwords/hash-gate.js'
import type { PasswordWork } from '../passwords/password-work.js'
import type { LoginContext, TokenScope, TokenService } from '../sessions/tokens.js'
import type { Account, AccountStore } from '../store/account-store.js'
import type { AfterFirstFactor } from './after-first-factor.js'
import type { SsoRequirement } from '../sso/sso-requirement.js'
import type { LoginAttempts } from './login-attempts.js'

export interface PasswordSignInOptions {
  readonly store: AccountStore
  readonly tokens: TokenService
  readonly work: PasswordWork
  readonly attempts: LoginAttempts
  /** Whose browser is known: a known browser has a lock of its own, and no slow-down. */
  readonly browserNotices: BrowserNotices
  /** Asks the breach corpus about a login's right password; null: BREACHED_PASSWORDS=off. */
  readonly breachCheck: BreachCheck | null
  readonly breachNotices: BreachNotices
  readonly after: AfterFirstFactor
  /** A domain that signs in only with single sign-on is refused its password (sso-requirement.ts). */
  readonly ssoRequirement: SsoRequirement
}

/**
 * Email and password login (`v2/login`; also local-network `/authenticate`,
 * which passes its `scope`: the login's tokens, and its second factor's
 * challenge, then work only there).
 */
export class PasswordSignIn {
  constructor (private readonly options: PasswordSignInOptions) {}

  async login (body: unknown, facts: RequestFacts, { scope }: { readonly scope?: TokenScope } = {}): Promise<Answer> {
    const { store, work, attempts, after } = this.options
    const parsed = parsePasswordLogin(body)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const { email, password } = parsed.value
    // Before the account is read and any password hashed: the refusal tells nothing, and takes no longer, for an address with an account.
    const ssoRequired = this.options.ssoRequirement.refusalFor(email, 'password', facts)
    if (ssoRequired !== null) return ssoRequired
    const context: LoginContext = scope === undefined ? parsed.value.context : { ...parsed.value.context, scope }
    const account = await store.findAccountByEmail(email)
    const attempt = await attempts.begin(email, await this.options.browserNotices.knownBrowserHash(account, facts), facts)
    if ('refused' in attempt) return attempt.refused

    const verified = account?.passwordHash != null
      ? await work.verify(password, account.passwordHash, facts.signal)
      : await work.verifyDecoy(password, facts.signal)
    if (account === null || !verified) return await attempts.failed(attempt, facts, account?.id)
    const locked = await attempts.lockedMeanwhile(attempt, facts)
    if (locked !== null) return locked
    // Asked only now, for the right password (a wrong one is never sent, nor counted), and
    // while the rest of the login goes on: it waits at most the range call's timeout.
    const breached = this.options.breachCheck?.breachedAtLogin(password) ?? Promise.resolve(false)
    await attempts.succeeded(attempt)
    const passwordHash = await this.rehashIfDue(account, password, facts)
    // Only after the right password: the refusal tells that the account exists.
    const unverified = after.refusalIfUnverified(account, facts)
    // Its browser is not recorded: whoever knows the password without the address would then be a
    // known browser, spared the new-browser email once the owner verifies.
    if (unverified !== null) return unverified
    const secondFactor = await after.secondFactorStep(account, context, 'pwd', facts, breached)
    if (secondFactor !== null && secondFactor.status !== 200) return secondFactor
    if (secondFactor !== null) {
      // The challenge record carries the flag on to the answer with the tokens (LoginChallenges.finishLogin).
      if (await breached) this.options.breachNotices.signedInWithBreachedPassword(account, facts)
      // As below: a reset during this login's hashing leaves it nothing to continue.
      if (await this.changedMeanwhile(account, password, passwordHash)) return error(401, say(facts, 'login.invalidCredentials'))
      return await after.withBrowserCookie(account, secondFactor, facts)
    }
    const answer = await after.completeLogin(account, context, 'pwd', facts)
    if (answer.status !== 200) return answer
    // A claim (server/reference/account-changes/account-claims.ts) or a reset that ran while this login
    // hashed has revoked every session and removed or changed the password: the token just issued
    // would outlive them.
    if (await this.changedMeanwhile(account, password, passwordHash)) {
      await this.options.tokens.revoke(String(answer.body.refresh))
      logAuthEvent(facts, 'login.failed', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'password changed meanwhile' })
      return error(401, say(facts, 'login.invalidCredentials'))
    }
    return await after.withBrowserCookie(account, await this.signedIn(account, answer, breached, facts), facts)
  }

  /** The hash the account has after this login: a new one when the stored one was made with older parameters. */
  private async rehashIfDue (account: Account, password: string, facts: RequestFacts): Promise<string> {
    const stored = account.passwordHash!
    if (!this.options.work.needsRehash(stored)) return stored
    // The new hash can wait for a calmer moment (the next login): refused by the gate, it is skipped.
    const rehashed = await this.options.work.hash(password, facts.signal).catch((error: unknown) => {
      if (error instanceof PasswordWorkRefused) return null
      throw error
    })
    if (rehashed === null) return stored
    await this.options.store.updatePasswordHash(account.id, rehashed)
    return rehashed
  }

  /**
   * Whether the password stopped being the account's while this login ran (a concurrent rehash
   * also changes the hash, but the password still matches it). Checked without the gate: rare
   * (the hash changed during this very login), and refusing here would strand the token.
   */
  private async changedMeanwhile (account: Account, password: string, passwordHash: string): Promise<boolean> {
    const stored = (await this.options.store.findAccountById(account.id))?.passwordHash ?? null
    return stored !== passwordHash && (stored === null || !await this.options.work.verifyUngated(password, stored))
  }

  /** The tokens' answer with what the page is told beside them: a second factor it has, a breached password. */
  private async signedIn (account: Account, answer: Answer, breached: Promise<boolean>, facts: RequestFacts): Promise<Answer> {
    // Tokens for an enrolled account mean a remembered browser skipped the code: the hint spares
    // its owner the page's offer to set up a second factor they have (docs/second-factor.md).
    const enrolled = await this.options.after.isEnrolled(account.id)
    const passwordBreached = await breached
    if (passwordBreached) this.options.breachNotices.signedInWithBreachedPassword(account, facts)
    if (!enrolled && !passwordBreached) return answer
    return { ...answer, body: { ...answer.body, ...(enrolled ? { second_factor_enrolled: true } : {}), ...(passwordBreached ? { [PASSWORD_BREACHED_FIELD]: true } : {}) } }
  }
}
