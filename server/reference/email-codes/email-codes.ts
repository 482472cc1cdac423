import type { AccountClaims } from '../account-changes/account-claims.js'
import type { AccountOwners } from '../account-changes/account-owner.js'
import type { OwnerEmailing } from '../emails/email-links.js'
import type { AfterFirstFactor } from '../sign-in/after-first-factor.js'
import type { SsoRequirement } from '../sso/sso-requirement.js'
import { CodeTries } from './code-bounds.js'
import { EmailCodeHasher } from './code-hashing.js'
import { CodeReauthentication } from './code-reauthentication.js'
import { CodeSending } from './code-sending.js'
import { CodeSignIn } from './code-sign-in.js'

export interface EmailCodesOptions extends OwnerEmailing {
  /** The derived secret the codes' HMACs are keyed with (EMAIL_CODE_PURPOSE). */
  readonly key: Buffer
  readonly owners: AccountOwners
  readonly claims: AccountClaims
  readonly after: AfterFirstFactor
  /** A domain that signs in only with single sign-on gets no code, and no sign-in with one. */
  readonly ssoRequirement: SsoRequirement
}

/**
 * Emailed codes (docs/reference-service.md#emailed-codes): a sign-in or
 * sign-up with a code sent to the address, and a fresh proof with one sent
 * to the signed-in owner's. One part per call, made from one set of options,
 * sharing the codes' hashes and bounds.
 */
export class EmailCodes {
  /** `email-code/send`. */
  readonly sending: CodeSending
  /** `email-code/login`. */
  readonly signIn: CodeSignIn
  /** `reauthenticate` with `email_code`. */
  readonly reauthentication: CodeReauthentication

  constructor (options: EmailCodesOptions) {
    const hasher = new EmailCodeHasher(options.key)
    const tries = new CodeTries({ store: options.store, hasher, now: options.now })
    this.sending = new CodeSending({ ...options, hasher })
    this.signIn = new CodeSignIn({ ...options, tries })
    this.reauthentication = new CodeReauthentication({ tries, now: options.now })
  }
}
