import type { PasskeySettings } from '../../shared/passkeys/passkey-config.js'
import type { AccountOwners } from '../account-changes/account-owner.js'
import type { ChangeNotices } from '../account-changes/change-notices.js'
import type { FreshProofs } from '../account-changes/fresh-proofs.js'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import type { SessionTokens } from '../sessions/session-tokens.js'
import type { AfterFirstFactor } from '../sign-in/after-first-factor.js'
import type { AccountStore } from '../store/account-store.js'
import { PasskeyCeremony } from './passkey-ceremony.js'
import { PasskeyList } from './passkey-list.js'
import { PasskeyReauthentication } from './passkey-reauthentication.js'
import { PasskeyRegistration } from './passkey-registration.js'
import { PasskeyRemoval } from './passkey-removal.js'
import { PasskeyRename } from './passkey-rename.js'
import { PasskeySignIn } from './passkey-sign-in.js'

export interface PasskeysOptions {
  readonly store: AccountStore
  /** Who may change the account (server/reference/account-changes/account-owner.ts). */
  readonly owners: AccountOwners
  readonly proofs: FreshProofs
  /** Ends a passkey sign-in as every flow does. */
  readonly after: AfterFirstFactor
  /** Ends a session a removal raced with. */
  readonly sessionTokens: Pick<SessionTokens, 'revoke'>
  /** Tells the owner of every passkey added or removed. */
  readonly changeNotices: ChangeNotices
  readonly settings: PasskeySettings
  /** The relying party's name the browser shows (PRODUCT_NAME). */
  readonly productName: string
  /** Counts the locks failures set. */
  readonly metrics: Pick<ReferenceMetrics, 'lockout'>
  readonly now: () => number
}

/**
 * The passkey ceremonies of the reference service (docs/passkeys.md):
 * discoverable credentials, user verification required (but for the one
 * conditional registration), challenges single-use and bound to the
 * browser. One part per ceremony, made from one set of options.
 */
export class Passkeys {
  /** `passkeys/login/options` and `passkeys/login`. */
  readonly signIn: PasskeySignIn
  /** `passkeys/register/options` and `passkeys/register`. */
  readonly registration: PasskeyRegistration
  /** `passkeys/reauthenticate/options` and `passkeys/reauthenticate`. */
  readonly reauthentication: PasskeyReauthentication
  /** `passkeys/remove`. */
  readonly removal: PasskeyRemoval
  /** `passkeys/list`. */
  readonly list: PasskeyList
  /** `passkeys/rename`. */
  readonly rename: PasskeyRename

  constructor (options: PasskeysOptions) {
    const ceremony = new PasskeyCeremony(options)
    this.signIn = new PasskeySignIn({ ...options, ceremony })
    this.registration = new PasskeyRegistration({ ...options, ceremony })
    this.reauthentication = new PasskeyReauthentication({ ...options, ceremony })
    this.removal = new PasskeyRemoval(options)
    this.list = new PasskeyList(options)
    this.rename = new PasskeyRename(options)
  }
}
