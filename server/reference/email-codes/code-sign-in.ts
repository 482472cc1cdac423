import type { AccountClaims } from '../account-changes/account-claims.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { parseEmailCodeLogin } from '../http/validation.js'
import { say } from '../languages/answer-texts.js'
import type { AfterFirstFactor } from '../sign-in/after-first-factor.js'
import type { Account, AccountStore } from '../store/account-store.js'
import type { SsoRequirement } from '../sso/sso-requirement.js'
import { readBinding } from './browser-binding-cookie.js'
import { refusedTryAnswer, type CodeTries } from './code-bounds.js'

export interface CodeSignInOptions {
  readonly store: AccountStore
  readonly tries: CodeTries
  /** An unverified account with the address passes to whoever proved the address (server/reference/account-changes/account-claims.ts). */
  readonly claims: AccountClaims
  readonly after: AfterFirstFactor
  readonly now: () => number
  /** A domain that signs in only with single sign-on signs in with no code (sso-requirement.ts). */
  readonly ssoRequirement: SsoRequirement
}

/**
 * `email-code/login`: the answers of `v2/login` for a code emailed to the
 * address, in the browser that asked for it. The code proves the mailbox
 * and nothing more: it is one factor, and the account's second factor still
 * follows. An address without an account gets one (no password, its address
 * verified: `registered: true`); an unverified account passes to the
 * mailbox's holder as a Google sign-in claims it.
 */
export class CodeSignIn {
  constructor (private readonly options: CodeSignInOptions) {}

  async login (body: unknown, facts: RequestFacts): Promise<Answer> {
    const parsed = parseEmailCodeLogin(body)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    const { email, code, context } = parsed.value
    // Before the code is tried: nothing read or spent, whether the address has an account.
    const ssoRequired = this.options.ssoRequirement.refusalFor(email, 'email-code', facts)
    if (ssoRequired !== null) return ssoRequired
    const tried = await this.options.tries.attempt({ email, code, purpose: 'sign-in', binding: readBinding(facts.browser?.cookieHeader) }, facts)
    if (!('proven' in tried)) return refusedTryAnswer(tried, this.options.now(), facts)
    const existing = await this.options.store.findAccountByEmail(email)
    // A new account belongs to no organisation: a sign-in that names some would be refused once it
    // existed, so none is made for it (the code is spent all the same).
    if (existing === null && context.organizations.length > 0) {
      logAuthEvent(facts, 'login.refused-organization', { email, clientAddress: facts.clientAddress })
      return error(403, say(facts, 'login.notAMember'))
    }
    const { account, registered } = await this.accountOf(email, existing, facts)
    const { after } = this.options
    const secondFactor = await after.secondFactorStep(account, context, 'email', facts)
    if (secondFactor !== null) return secondFactor.status === 200 ? await this.withBrowserCookie(account, secondFactor, facts) : secondFactor
    const answer = await after.completeLogin(account, context, 'email', facts)
    if (answer.status !== 200) return answer
    // As after a password: tokens for an enrolled account mean a remembered browser skipped the code.
    const enrolled = await after.isEnrolled(account.id)
    const extra = { ...enrolled ? { second_factor_enrolled: true } : {}, ...registered ? { registered: true } : {} }
    return await this.withBrowserCookie(account, { ...answer, body: { ...answer.body, ...extra } }, facts)
  }

  /** The code named this browser in its email a minute ago: no "new sign-in" email on top of it. */
  private async withBrowserCookie (account: Account, answer: Answer, facts: RequestFacts): Promise<Answer> {
    return await this.options.after.withBrowserCookie(account, answer, facts, { tellOwner: false })
  }

  /** The address's account: made now when there is none, claimed when its address was never verified. */
  private async accountOf (email: string, existing: Account | null, facts: RequestFacts): Promise<{ account: Account, registered: boolean }> {
    const { store, claims, now } = this.options
    if (existing !== null) return { account: await claims.claimIfUnverified(existing, { via: 'emailed-code' }, facts), registered: false }
    const created = await store.createAccount({ email, firstName: null, lastName: null, passwordHash: null, googleSubject: null, emailVerifiedAt: now() })
    if ('created' in created) {
      logAuthEvent(facts, 'email-code.registered', { accountId: created.created.id, email, clientAddress: facts.clientAddress })
      return { account: created.created, registered: true }
    }
    // Registered meanwhile by another call: the code proves this address all the same.
    const raced = await store.findAccountByEmail(email)
    if (raced === null) throw new Error('the account that took the address has gone')
    return { account: await claims.claimIfUnverified(raced, { via: 'emailed-code' }, facts), registered: false }
  }
}
