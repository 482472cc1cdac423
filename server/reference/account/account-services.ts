import type { AccountOwners } from '../account-changes/account-owner.js'
import type { Mailer } from '../emails/mailer.js'
import type { SocialAccount } from '../social/social-account.js'
import type { AccountStore } from '../store/account-store.js'
import { AccountActivity } from './account-activity.js'
import { AccountDeletion } from './account-deletion.js'
import { AccountOverviews } from './account-overview.js'
import { AccountSessions } from './account-sessions.js'
import { SecurityEvents } from './security-events.js'

/** The account view's calls (docs/account-changes.md), and the events its activity lists. */
export interface AccountServices {
  readonly overviews: AccountOverviews
  readonly sessions: AccountSessions
  readonly activity: AccountActivity
  readonly deletion: AccountDeletion
  readonly events: SecurityEvents
}

export interface AccountServicesOptions {
  readonly store: AccountStore
  readonly owners: AccountOwners
  readonly mailer: Mailer
  readonly productName: string
  readonly passkeys: boolean
  readonly secondFactor: boolean
  /** The social connections' side of the view (its `social` list and feature). */
  readonly social: Pick<SocialAccount, 'providers' | 'configured'>
  readonly now: () => number
}

export function accountServices ({ store, owners, mailer, productName, passkeys, secondFactor, social, now }: AccountServicesOptions): AccountServices {
  return {
    overviews: new AccountOverviews({ store, owners, passkeys, secondFactor, social, now }),
    sessions: new AccountSessions({ store, owners, now }),
    activity: new AccountActivity({ store, owners, now }),
    deletion: new AccountDeletion({ store, owners, mailer, productName, now }),
    events: new SecurityEvents({ store, now })
  }
}
