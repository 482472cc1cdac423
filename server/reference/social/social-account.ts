import { LAST_WAY_IN_REASON } from '../../../common/social/social-answers.js'
import type { LinkedSocialProvider } from '../../../common/social/social-providers.js'
import { isRefusal, type AccountOwners } from '../account-changes/account-owner.js'
import type { ChangeNotices } from '../account-changes/change-notices.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer as success, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import type { Account, AccountStore } from '../store/account-store.js'
import { parsePageId, parseProviderBody } from './requests.js'
import type { SocialFlows } from './social-flows.js'
import { clearedSocialStateCookie } from './social-state.js'

export interface SocialAccountOptions {
  readonly store: AccountStore
  readonly owners: AccountOwners
  readonly flows: SocialFlows
  readonly changeNotices: ChangeNotices
  /** The other ways in this service offers (PASSKEYS, GOOGLE_CLIENT_ID, EMAIL_CODES): whether an account still has one besides a link. */
  readonly passkeys: boolean
  readonly google: boolean
  readonly emailCodes: boolean
  readonly now: () => number
}

/**
 * The account view's social calls (docs/social-sign-in.md, "From the
 * account"): the list of providers, a link to one after a fresh proof, and
 * an unlink after a fresh proof as long as another way in remains. Each
 * change is an audit event, an activity entry and an email to the owner,
 * whose "this wasn't me" link removes a link it announced.
 */
export class SocialAccount {
  constructor (private readonly options: SocialAccountOptions) {}

  private get store (): AccountStore { return this.options.store }

  /** Whether any social connection is configured (the view's `social` feature). */
  get configured (): boolean {
    return this.options.flows.configured.length > 0
  }

  /** `account/overview`'s `social`: every configured connection in order, with the account's link where it has one. */
  async providers (accountId: string): Promise<readonly LinkedSocialProvider[]> {
    const links = await this.store.socialLinks.list(accountId)
    return this.options.flows.configured.map(({ id }) => {
      const link = links.find((entry) => entry.provider === id)
      return { provider: id, email: link?.email ?? null, linkedAt: link?.linkedAt ?? null }
    })
  }

  /** `account/social/link/start {provider}`: after a fresh proof, the provider's leg as a sign-in has it, for this account. */
  async linkStart (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'social.link.refused', signedOut: 'account.signedOut' })
    if (isRefusal(owner)) return owner
    const provider = parseProviderBody(body)
    if (!provider.ok) return error(400, say(facts, provider.error))
    return await this.options.flows.begin(provider.value, { purpose: 'link', accountId: owner.account.id, locale: facts.locale }, facts)
  }

  /** `account/social/link {id}` with the cookie: links the identity the return's id stands for, if it was asked for by this account. */
  async link (authToken: string | null, body: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<Answer> {
    const answer = await this.linkAnswer(authToken, body, cookieHeader, facts)
    return { ...answer, cookies: [...answer.cookies ?? [], clearedSocialStateCookie()] }
  }

  private async linkAnswer (authToken: string | null, body: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'social.link.refused', signedOut: 'account.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const id = parsePageId(body !== null && typeof body === 'object' ? (body as Record<string, unknown>).id : undefined)
    if (!id.ok) return error(400, say(facts, id.error))
    const returned = await this.options.flows.takeReturned(id.value, cookieHeader, facts)
    if (returned === null || returned.intent.purpose !== 'link' || returned.intent.accountId !== account.id) {
      if (returned !== null) logAuthEvent(facts, 'social.link.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'id issued for another account or purpose' })
      return error(401, say(facts, 'social.linkRefused'))
    }
    const { provider, identity } = returned
    const name = this.options.flows.nameOf(provider)
    if (this.options.flows.connection(provider) === undefined) return error(401, say(facts, { key: 'social.notConfigured', params: { provider: name } }))
    const result = await this.store.socialLinks.link({ provider, subject: identity.subject, accountId: account.id, email: identity.email, linkedAt: this.options.now() })
    if (result !== 'linked') {
      logAuthEvent(facts, 'social.link.refused', { accountId: account.id, clientAddress: facts.clientAddress, provider, reason: result })
      return error(409, say(facts, { key: result === 'identity-taken' ? 'social.linkedElsewhere' : 'social.providerLinkedAlready', params: { provider: name } }))
    }
    logAuthEvent(facts, 'social.linked', { accountId: account.id, clientAddress: facts.clientAddress, provider })
    this.options.changeNotices.tellOwner(account, { kind: 'social-linked', provider: name }, facts, { kind: 'social', provider, subject: identity.subject })
    return success(say(facts, { key: 'social.linked', params: { provider: name } }))
  }

  /** `account/social/unlink {provider}`: after a fresh proof, unless nothing else would sign in. */
  async unlink (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'social.unlink.refused', signedOut: 'account.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const provider = parseProviderBody(body)
    if (!provider.ok) return error(400, say(facts, provider.error))
    const name = this.options.flows.nameOf(provider.value)
    const links = await this.store.socialLinks.list(account.id)
    if (!links.some((link) => link.provider === provider.value)) return error(404, say(facts, { key: 'social.notLinked', params: { provider: name } }))
    if (!await this.hasAnotherWayIn(account, provider.value, links.map((link) => link.provider))) {
      logAuthEvent(facts, 'social.unlink.refused', { accountId: account.id, clientAddress: facts.clientAddress, provider: provider.value, reason: LAST_WAY_IN_REASON })
      return error(409, say(facts, { key: 'social.lastWayIn', params: { provider: name } }), { reason: LAST_WAY_IN_REASON })
    }
    if (!await this.store.socialLinks.unlink(account.id, provider.value)) return error(404, say(facts, { key: 'social.notLinked', params: { provider: name } }))
    logAuthEvent(facts, 'social.unlinked', { accountId: account.id, clientAddress: facts.clientAddress, provider: provider.value })
    this.options.changeNotices.tellOwner(account, { kind: 'social-unlinked', provider: name }, facts)
    return success(say(facts, { key: 'social.unlinked', params: { provider: name } }))
  }

  /**
   * Whether the account signs in without `provider`'s link: a password, a
   * passkey, Google, another linked provider still configured, or emailed
   * codes (which sign in any account by its address).
   */
  private async hasAnotherWayIn (account: Account, provider: string, linked: readonly string[]): Promise<boolean> {
    const { passkeys, google, emailCodes, flows } = this.options
    if (account.passwordHash !== null || emailCodes || (google && account.googleSubject !== null)) return true
    if (linked.some((other) => other !== provider && flows.connection(other) !== undefined)) return true
    return passkeys && (await this.store.listPasskeys(account.id)).length > 0
  }
}
