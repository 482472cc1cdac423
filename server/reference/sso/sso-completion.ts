import type { AccountClaims } from '../account-changes/account-claims.js'
import type { AfterFirstFactor } from '../sign-in/after-first-factor.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import type { Account, AccountStore, SsoIdentity } from '../store/account-store.js'
import { emailKey } from '../../shared/email-key.js'
import { hashToken } from '../sessions/tokens.js'
import { parseSsoLoginCompletion, parseSsoRegisterCompletion, type SsoCompletion as Completion } from './requests.js'
import type { SsoReply } from './sso-flows.js'
import { bindingMatches, clearedStateCookie, readBinding } from './state-cookie.js'

const SSO_LINK_REFUSED: AnswerKey = 'sso.linkRefused'

export interface SsoCompletionOptions {
  readonly store: AccountStore
  /** Ends the sign-in as every flow does. */
  readonly after: Pick<AfterFirstFactor, 'completeLogin'>
  readonly claims: AccountClaims
  readonly now: () => number
}

/** Every completion answer removes the state cookie: the sign-in it guarded is over either way. */
const reply = (answer: Answer): SsoReply => ({ kind: 'answer', answer, cookie: clearedStateCookie() })
const refused = (facts: RequestFacts): SsoReply => reply({ status: 401, body: { error: say(facts, SSO_LINK_REFUSED) } })

/**
 * The page's automatic completion of single sign-on (`v2/auth/login` with
 * `login_method` OIDC or SAML, `auth/register` with `register_method`).
 *
 * The id succeeds once, within 10 minutes, and only in the browser whose
 * state cookie it was bound to when it was issued.
 *
 * Account semantics: the operator bound the provider to one email domain, so
 * its verified word on an address in that domain proves the address. Login
 * signs in the account with the asserted email, creating it on first use
 * (just-in-time), whether it was made with a password, Google or SSO; an
 * account whose address was never verified is claimed first
 * (server/reference/account-changes/account-claims.ts). Register creates the account, claims an unverified
 * one, or says a verified one exists.
 */
export class SsoCompletion {
  constructor (private readonly options: SsoCompletionOptions) {}

  private get store (): AccountStore { return this.options.store }

  /** Takes the identity the id stands for, if this browser may use it. */
  private async takeIdentity (completion: Completion, cookieHeader: string | undefined, facts: RequestFacts): Promise<SsoIdentity | null> {
    const binding = readBinding(cookieHeader)
    const refuse = (reason: string): null => {
      logAuthEvent(facts, 'sso.refused', { clientAddress: facts.clientAddress, protocol: completion.protocol, reason })
      return null
    }
    // Without a cookie nothing is taken: the id stays usable by the browser it belongs to.
    if (binding === null) return refuse('no state cookie')
    const identity = await this.store.takeSsoIdentity(hashToken(completion.id), this.options.now())
    if (identity === null) return refuse('unknown, used or expired id')
    if (!bindingMatches(binding, identity.bindingHash)) return refuse('id bound to another browser')
    if (identity.protocol !== completion.protocol) return refuse('id issued for the other protocol')
    return identity
  }

  private async findOrCreateAccount (email: string, facts: RequestFacts): Promise<Account> {
    // An account whose address was never verified may be a stranger's, registered with a password
    // before the owner came (a pre-hijack): the provider's word on the address hands it to the owner.
    const existing = await this.store.findAccountByEmail(email)
    if (existing !== null) return this.options.claims.claimIfUnverified(existing, { via: 'sso' }, facts)
    const result = await this.store.createAccount({ email, firstName: null, lastName: null, passwordHash: null, googleSubject: null, emailVerifiedAt: this.options.now() })
    if ('created' in result) {
      logAuthEvent(facts, 'sso.register.succeeded', { accountId: result.created.id, clientAddress: facts.clientAddress, justInTime: true })
      return result.created
    }
    // Created by a concurrent request in the meantime.
    const created = await this.store.findAccountByEmail(email)
    if (created === null) throw new Error('the account could neither be created nor found')
    return created
  }

  /** `v2/auth/login` with `login_method` OIDC or SAML. */
  async login (body: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<SsoReply> {
    const parsed = parseSsoLoginCompletion(body)
    if (!parsed.ok) return reply({ status: 400, body: { error: say(facts, parsed.error) } })
    const identity = await this.takeIdentity(parsed.value, cookieHeader, facts)
    if (identity === null) return refused(facts)
    if (emailKey(identity.email) !== emailKey(parsed.value.email)) {
      logAuthEvent(facts, 'sso.refused', { clientAddress: facts.clientAddress, protocol: identity.protocol, reason: 'email differs from the asserted one' })
      return refused(facts)
    }
    const account = await this.findOrCreateAccount(identity.email, facts)
    return reply(await this.options.after.completeLogin(account, parsed.value.context, 'sso', facts))
  }

  /** `auth/register` with `register_method` OIDC or SAML. */
  async register (body: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<SsoReply> {
    const parsed = parseSsoRegisterCompletion(body)
    if (!parsed.ok) return reply({ status: 400, body: { error: say(facts, parsed.error) } })
    const identity = await this.takeIdentity(parsed.value, cookieHeader, facts)
    if (identity === null) return refused(facts)
    const result = await this.store.createAccount({
      email: identity.email, firstName: null, lastName: null, passwordHash: null, googleSubject: null, emailVerifiedAt: this.options.now()
    })
    if ('conflict' in result) {
      const existing = await this.store.findAccountByEmail(identity.email)
      if (existing !== null && existing.emailVerifiedAt === null) {
        await this.options.claims.claimIfUnverified(existing, { via: 'sso' }, facts)
        return reply({ status: 200, body: { success: say(facts, 'sso.claimed') } })
      }
      logAuthEvent(facts, 'register.refused', { email: identity.email, clientAddress: facts.clientAddress, reason: 'exists' })
      return reply({ status: 409, body: { error: say(facts, 'sso.accountExists') } })
    }
    logAuthEvent(facts, 'sso.register.succeeded', { accountId: result.created.id, clientAddress: facts.clientAddress })
    return reply({ status: 200, body: { success: say(facts, 'sso.registered') } })
  }
}
