/**
 * The account view's data (docs/accounts-api.openapi.yaml, the `account/…`,
 * `sessions/list`, `passkeys/list` and `activity/list` answers), as the
 * accounts service answers it and as the edge embeds it in the page
 * (ACCOUNT_STATE_ELEMENT_ID), so that the view renders on the server, works
 * without scripts and hydrates into the same state.
 */

/** What a backend serves of the account view (`account/overview`'s `features`): the view shows only these sections. */
export const ACCOUNT_FEATURES = ['sessions', 'passkeys', 'second-factor', 'password', 'email', 'activity', 'delete', 'social'] as const

export type AccountFeature = typeof ACCOUNT_FEATURES[number]

import type { LinkedSocialProvider } from '../social/social-providers.js'

/** `account/overview`'s answer. */
export interface AccountOverview {
  readonly account: {
    readonly email: string
    readonly firstName: string | null
    readonly lastName: string | null
    readonly emailVerified: boolean
    readonly hasPassword: boolean
    readonly google: boolean
  }
  readonly secondFactor: {
    readonly enrolled: boolean
    readonly recoveryCodesLeft: number
    readonly rememberedBrowsers: number
  }
  readonly features: readonly AccountFeature[]
  /**
   * Every configured social connection, linked or not, in the operator's order (`social` feature); absent from
   * a backend that serves none, read as none.
   */
  readonly social?: readonly LinkedSocialProvider[]
}

/** One entry of `sessions/list`. Times are milliseconds since the epoch. */
export interface AccountSession {
  readonly id: string
  /** The session the request's auth token belongs to: "this browser". */
  readonly current: boolean
  /** The browser and system, from the User-Agent at sign-in ("Firefox on Linux"). */
  readonly browser: string
  readonly signedInAt: number
  readonly lastUsedAt: number
  /** The network address's range: the /24 of IPv4, the /48 of IPv6 ("203.0.113.0/24"). */
  readonly addressRange: string
  /** The first factor it signed in with: `password`, `passkey`, `google`, `sso`. */
  readonly method: string
}

/** One entry of `passkeys/list`. */
export interface AccountPasskey {
  readonly id: string
  readonly name: string | null
  readonly createdAt: number
  readonly lastUsedAt: number | null
  readonly backedUp: boolean
}

/** What `activity/list` names. */
export const ACCOUNT_EVENT_KINDS = [
  'sign-in', 'sign-in-failed', 'password-changed', 'email-changed', 'passkey-added', 'passkey-removed',
  'second-factor-on', 'second-factor-off', 'recovery-codes-renewed', 'sessions-ended', 'social-linked', 'social-unlinked'
] as const

export type AccountEventKind = typeof ACCOUNT_EVENT_KINDS[number]

/** One entry of `activity/list`: the last 30 days, newest first, at most 100. */
export interface AccountEvent {
  readonly at: number
  readonly kind: AccountEventKind
  readonly method: string | null
  readonly browser: string
  readonly addressRange: string
}

/**
 * The account view's state, embedded in the page: the overview, and each list
 * its feature serves (null where the backend does not serve it or did not answer).
 */
export interface AccountState {
  readonly overview: AccountOverview
  readonly sessions: readonly AccountSession[] | null
  readonly passkeys: readonly AccountPasskey[] | null
  readonly activity: readonly AccountEvent[] | null
}

/** Id of the `<script type="application/json">` element that carries an AccountState. */
export const ACCOUNT_STATE_ELEMENT_ID = 'threshold-account'

/**
 * The account view's forms (the hidden `form` field's value), posted to the
 * page's own address without scripts (server/edge/no-script/) and sent as
 * calls with them. Fields: `account-end-session`: `id`; `account-end-others`:
 * none; `account-password`: `newPassword`, `confirmPassword`,
 * `endOtherSessions` ("on" when ticked), `currentPassword` (the fresh proof);
 * `account-email`: `newEmail`, `currentPassword`; `account-delete`:
 * `confirmEmail`, `currentPassword`; `logout`: none (`redirect` from the address).
 */
export const ACCOUNT_FORMS = ['account-end-session', 'account-end-others', 'account-password', 'account-email', 'account-delete', 'logout'] as const

export type AccountForm = typeof ACCOUNT_FORMS[number]
