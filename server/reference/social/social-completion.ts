import type { AccountClaims } from '../account-changes/account-claims.js'
import { logAuthEvent } from '../audit/audit.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import type { AfterFirstFactor } from '../sign-in/after-first-factor.js'
import type { Account, AccountStore } from '../store/account-store.js'
import { parseSocialLoginCompletion } from './requests.js'
import type { SocialFlows, VerifiedSocialIdentity } from './social-flows.js'
import { clearedSocialStateCookie } from './social-state.js'

export interface SocialCompletionOptions {
  readonly store: AccountStore
  readonly flows: SocialFlows
  /** Ends the sign-in as every flow does. */
  readonly after: Pick<AfterFirstFactor, 'secondFactorStep' | 'completeLogin'>
  readonly claims: AccountClaims
  /**
   * The refusal of a sign-in for an address whose domain must sign in with
   * single sign-on (a `required` SSO connection), or null; absent: none is.
   */
  readonly refuseAddress?: (email: string, facts: RequestFacts) => Answer | null
  readonly now: () => number
}

/** Every completion answer removes the state cookie: the sign-in it guarded is over either way. */
const withClearedCookie = (answer: Answer): Answer => ({ ...answer, cookies: [...answer.cookies ?? [], clearedSocialStateCookie()] })

type Resolution = { readonly account: Account, readonly registered: boolean } | { readonly refused: Answer }

/**
 * The page's completion of a social sign-in (`v2/auth/login` with
 * `login_method` SOCIAL), with the single-use id of the return: it succeeds
 * once, within 10 minutes, only in the browser whose `social_state` cookie it
 * was bound to, and only for the provider it was issued for.
 *
 * Who it signs in (docs/social-sign-in.md, "Linking"): the account the
 * provider's identity is linked to. Otherwise the provider's verified
 * address decides, as Google's does (server/reference/account-changes/account-claims.ts):
 * no account → one is created, without a password, and linked; an account
 * whose address was never verified → claimed and linked (whoever set its
 * password may not hold the address); a verified account → 409: an address
 * alone never links an identity to an account someone has proved, which
 * would hand it to whoever controls the address at the provider (a
 * provider's word on an address is weaker than the owner's proof of it).
 */
export class SocialCompletion {
  constructor (private readonly options: SocialCompletionOptions) {}

  private get store (): AccountStore { return this.options.store }

  async login (body: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<Answer> {
    return withClearedCookie(await this.answer(body, cookieHeader, facts))
  }

  private async answer (body: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<Answer> {
    const parsed = parseSocialLoginCompletion(body)
    if (!parsed.ok) return { status: 400, body: { error: say(facts, parsed.error) } }
    const { provider, id, context } = parsed.value
    const refused: Answer = { status: 401, body: { error: say(facts, 'social.linkRefused') } }
    const returned = await this.options.flows.takeReturned(id, cookieHeader, facts)
    if (returned === null) return refused
    if (returned.provider !== provider || returned.intent.purpose !== 'login') {
      logAuthEvent(facts, 'social.login.refused', { clientAddress: facts.clientAddress, provider, reason: 'id issued for another provider or purpose' })
      return refused
    }
    const connection = this.options.flows.connection(provider)
    if (connection === undefined) {
      logAuthEvent(facts, 'social.login.refused', { clientAddress: facts.clientAddress, provider, reason: 'the connection is no longer configured' })
      return { status: 401, body: { error: say(facts, { key: 'social.notConfigured', params: { provider } }) } }
    }
    const ssoOnly = (email: string): Answer | null => {
      const refusal = this.options.refuseAddress?.(email, facts) ?? null
      if (refusal !== null) logAuthEvent(facts, 'social.login.refused', { email, clientAddress: facts.clientAddress, provider, reason: 'the domain signs in with single sign-on' })
      return refusal
    }
    // The provider's address, before an account is made for it; and the account's own, which a link may sign into.
    const beforeAccount = ssoOnly(returned.identity.email)
    if (beforeAccount !== null) return beforeAccount
    const resolved = await this.accountFor(provider, connection.name, returned.identity, facts)
    if ('refused' in resolved) return resolved.refused
    const { account, registered } = resolved
    const forAccount = account.email === returned.identity.email ? null : ssoOnly(account.email)
    if (forAccount !== null) return forAccount
    const { after } = this.options
    const answer = await after.secondFactorStep(account, context, 'social', facts) ?? await after.completeLogin(account, context, 'social', facts)
    return registered && answer.status === 200 && 'auth' in answer.body ? { ...answer, body: { ...answer.body, registered: true } } : answer
  }

  /** The account the identity signs into, made or claimed as the rules above say, or the refusal. */
  private async accountFor (provider: string, providerName: string, identity: VerifiedSocialIdentity, facts: RequestFacts): Promise<Resolution> {
    const linked = await this.store.socialLinks.find(provider, identity.subject)
    if (linked !== null) {
      const account = await this.store.findAccountById(linked.accountId)
      if (account !== null) return { account, registered: false }
    }
    const exists = (): Resolution => {
      logAuthEvent(facts, 'social.login.refused', { email: identity.email, clientAddress: facts.clientAddress, provider, reason: 'a verified account has the address' })
      return { refused: { status: 409, body: { error: say(facts, { key: 'social.accountExists', params: { provider: providerName } }) } } }
    }
    const link = async (account: Account): Promise<boolean> => await this.store.socialLinks.link({
      provider, subject: identity.subject, accountId: account.id, email: identity.email, linkedAt: this.options.now()
    }) === 'linked'
    const existing = await this.store.findAccountByEmail(identity.email)
    if (existing === null) {
      const created = await this.store.createAccount({
        email: identity.email, firstName: identity.firstName, lastName: identity.lastName, passwordHash: null, googleSubject: null, emailVerifiedAt: this.options.now()
      })
      // Made by a concurrent request meanwhile: that account is verified now, and is not linked on the address.
      if (!('created' in created) || !await link(created.created)) return exists()
      logAuthEvent(facts, 'social.registered', { accountId: created.created.id, clientAddress: facts.clientAddress, provider })
      return { account: created.created, registered: true }
    }
    if (existing.emailVerifiedAt !== null) return exists()
    const claimed = await this.options.claims.claimIfUnverified(existing, { via: 'social', provider: providerName }, facts)
    if (!await link(claimed)) return exists()
    return { account: claimed, registered: false }
  }
}
