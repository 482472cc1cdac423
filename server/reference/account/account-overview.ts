import { ACCOUNT_FEATURES, type AccountFeature, type AccountOverview } from '../../../common/account/account-state.js'
import { isRefusal, type AccountOwners } from '../account-changes/account-owner.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import { REMEMBER_BROWSER_MS } from '../second-factor/remembered-browser-cookie.js'
import type { SocialAccount } from '../social/social-account.js'
import type { AccountStore } from '../store/account-store.js'

export interface AccountOverviewsOptions {
  readonly store: Pick<AccountStore, 'countUnusedRecoveryCodes' | 'rememberedBrowsersForgottenAt' | 'countSecurityEvents'>
  readonly owners: AccountOwners
  /** PASSKEYS and SECOND_FACTOR: the account view offers their sections only while they are on. */
  readonly passkeys: boolean
  readonly secondFactor: boolean
  /** SOCIAL_CONNECTIONS: the view's `social` section, while any connection is configured. */
  readonly social: Pick<SocialAccount, 'providers' | 'configured'>
  readonly now: () => number
}

/**
 * `account/overview`: what the signed-in owner's account view starts from
 * (docs/account-changes.md): the account, its second factor, and what this
 * service serves of the view (`features`), so that the view offers nothing
 * that would answer "Not found.". A live session is enough: it reads only.
 */
export class AccountOverviews {
  constructor (private readonly options: AccountOverviewsOptions) {}

  async overview (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const { store, owners } = this.options
    const owner = await owners.check(authToken, facts, 'session', { event: 'account.read-refused', signedOut: 'account.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const enrolled = await owners.hasSecondFactor(account)
    const overview: AccountOverview = {
      account: {
        email: account.email,
        firstName: account.firstName,
        lastName: account.lastName,
        emailVerified: account.emailVerifiedAt !== null,
        hasPassword: account.passwordHash !== null,
        google: account.googleSubject !== null
      },
      secondFactor: {
        enrolled,
        recoveryCodesLeft: enrolled ? await store.countUnusedRecoveryCodes(account.id) : 0,
        rememberedBrowsers: enrolled ? await this.rememberedBrowsers(account.id) : 0
      },
      features: this.features(),
      ...(this.options.social.configured ? { social: await this.options.social.providers(account.id) } : {})
    }
    return { status: 200, body: { ...overview } }
  }

  /**
   * The browsers still spared the code step: those remembered within the
   * cookie's lifetime and since the account's remembered browsers were last
   * forgotten (the cookies themselves are kept by the browsers alone).
   */
  private async rememberedBrowsers (accountId: string): Promise<number> {
    const forgottenAt = await this.options.store.rememberedBrowsersForgottenAt(accountId) ?? 0
    const since = Math.max(this.options.now() - REMEMBER_BROWSER_MS, forgottenAt)
    return await this.options.store.countSecurityEvents(accountId, 'browser-remembered', since)
  }

  /** Every section but those of a factor that is off, in the order the view shows them. */
  private features (): AccountFeature[] {
    const off = new Set<AccountFeature>([
      ...(this.options.passkeys ? [] : ['passkeys' as const]), ...(this.options.secondFactor ? [] : ['second-factor' as const]),
      ...(this.options.social.configured ? [] : ['social' as const])
    ])
    return ACCOUNT_FEATURES.filter((feature) => !off.has(feature))
  }
}
