import { randomUUID } from 'node:crypto'
import { EMAIL_NOT_VERIFIED_REASON } from '../../../common/page/page-notices.js'
import { proofOfSignIn, type FreshProofs } from '../account-changes/fresh-proofs.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import type { BrowserNotices } from '../known-browsers/browser-notices.js'
import { say } from '../languages/answer-texts.js'
import { REMEMBERED_BROWSER_SESSION } from '../second-factor/second-factor-requirement.js'
import type { FirstFactor, FirstFactorProof } from '../second-factor/login-challenges.js'
import type { SecondFactorGate } from '../second-factor/second-factor-gate.js'
import { requestOrigin } from '../sessions/request-origin.js'
import type { AuthenticationMethod, LoginContext, TokenService } from '../sessions/tokens.js'
import type { Account, AccountStore } from '../store/account-store.js'

export interface AfterFirstFactorOptions {
  readonly store: AccountStore
  readonly tokens: TokenService
  /** REQUIRE_VERIFIED_EMAIL. */
  readonly requireVerifiedEmail: boolean
  /** Asks for a second factor after a password or Google sign-in when one is due; null: never. */
  readonly secondFactor: SecondFactorGate | null
  /** Records the proof each sign-in makes in its browser (docs/account-changes.md). */
  readonly proofs: FreshProofs
  /** The known browsers, whose cookie a signed-in browser gets. */
  readonly browserNotices: BrowserNotices
  readonly now: () => number
}

/** The audit event of a completed sign-in, by how it was made. */
const SIGNED_IN_EVENT = {
  pwd: 'login.succeeded',
  'pwd+otp': 'login.succeeded',
  google: 'google.login.succeeded',
  'google+otp': 'google.login.succeeded',
  social: 'social.login.succeeded',
  'social+otp': 'social.login.succeeded',
  sso: 'sso.login.succeeded',
  hwk: 'passkey.login.succeeded',
  email: 'email-code.login.succeeded',
  'email+otp': 'email-code.login.succeeded'
} as const

/**
 * What every sign-in does once its first factor is right (a password, a
 * Google token, a passkey, an SSO provider's word, an emailed code, and the code step after
 * them): the refusal of an unverified address, the second-factor step, the
 * tokens with the organisations and the remembered browser, the proof of
 * the sign-in, and the known-browser cookie. Each flow calls the steps it
 * has, in this order.
 */
export class AfterFirstFactor {
  constructor (private readonly options: AfterFirstFactorOptions) {}

  /**
   * With REQUIRE_VERIFIED_EMAIL, the 403 (with its reason, which the page offers a new link for) that
   * ends a login whose first factor was right, for an address not verified yet; null otherwise.
   */
  refusalIfUnverified (account: Account, facts: RequestFacts): Answer | null {
    if (!this.options.requireVerifiedEmail || account.emailVerifiedAt !== null) return null
    logAuthEvent(facts, 'login.refused-unverified', { accountId: account.id, clientAddress: facts.clientAddress })
    return error(403, say(facts, 'login.emailNotVerified'), { reason: EMAIL_NOT_VERIFIED_REASON })
  }

  /**
   * The challenge answer when a second factor is due; a 403 first when the
   * login names organisations the account is not in (no code is asked for a
   * login that cannot succeed); null when tokens may be issued now.
   */
  async secondFactorStep (
    account: Account, context: LoginContext, method: FirstFactor, facts: RequestFacts, passwordBreached?: Promise<boolean>, firstFactor?: FirstFactorProof
  ): Promise<Answer | null> {
    const gate = this.options.secondFactor
    if (gate === null) return null
    if (await this.allowedOrganizations(account, context, facts) === null) return error(403, say(facts, 'login.notAMember'))
    return await gate.challengeIfDue(account, context, method, facts, passwordBreached, firstFactor)
  }

  /** Whether the account has an enrolled second factor: tokens then mean a remembered browser skipped its code. */
  async isEnrolled (accountId: string): Promise<boolean> {
    return await this.options.secondFactor?.isEnrolled(accountId) === true
  }

  /** Issues tokens, if the account belongs to one of the allowed organisations (when any are given). */
  async completeLogin (
    account: Account, requested: LoginContext, method: AuthenticationMethod, facts: RequestFacts, { provesBrowser = true }: FirstFactorProof = {}
  ): Promise<Answer> {
    const organizations = await this.allowedOrganizations(account, requested, facts)
    if (organizations === null) return error(403, say(facts, 'login.notAMember'))
    // A remembered browser skipped the code (SecondFactorGate.remembersBrowser): the session keeps
    // that, for an organisation's requirement to count it as met at refresh (REMEMBERED_BROWSER_SESSION).
    const remembered = (method === 'pwd' || method === 'google' || method === 'email' || method === 'social') && await this.options.secondFactor?.remembersBrowser(account.id, facts) === true
    const context = remembered ? { ...requested, organizations, ...REMEMBERED_BROWSER_SESSION } : { ...requested, organizations }
    const session = { familyId: randomUUID(), signedInAt: this.options.now(), origin: requestOrigin(facts) }
    const tokens = await this.options.tokens.issue(account, context, method, session)
    // The sign-in is this browser's proof of the account, in this session, for the next few minutes (a passkey upgrade, a second factor).
    // Not a Google token the page did not ask for: it may have been read from another product's page.
    const proofCookie = provesBrowser ? await this.options.proofs.record({ accountId: account.id, sessionId: session.familyId }, proofOfSignIn(method), facts, { atSignIn: true }) : null
    logAuthEvent(facts, SIGNED_IN_EVENT[method], { accountId: account.id, clientAddress: facts.clientAddress, ...(method.endsWith('+otp') ? { secondFactor: true } : {}) })
    return { status: 200, body: { ...tokens }, ...proofCookie === null ? {} : { cookies: [proofCookie] } }
  }

  /**
   * `answer` with the known-browser cookie added, when the browser gets one (a new browser is told of by email,
   * unless `tellOwner` is false: BrowserNotices.signedIn).
   */
  async withBrowserCookie (account: Account, answer: Answer, facts: RequestFacts, options: { readonly tellOwner?: boolean } = {}): Promise<Answer> {
    const cookie = await this.options.browserNotices.signedIn(account, facts, options)
    return cookie === null ? answer : { ...answer, cookies: [...answer.cookies ?? [], cookie] }
  }

  /**
   * The requested organisations the account belongs to ([] when none was
   * requested); null, logged, when it belongs to none of them.
   */
  private async allowedOrganizations (account: Account, requested: LoginContext, facts: RequestFacts): Promise<readonly string[] | null> {
    if (requested.organizations.length === 0) return []
    const memberships = new Set(await this.options.store.listMemberships(account.id))
    const organizations = requested.organizations.filter((organization) => memberships.has(organization))
    if (organizations.length > 0) return organizations
    logAuthEvent(facts, 'login.refused-organization', { accountId: account.id, clientAddress: facts.clientAddress })
    return null
  }
}
