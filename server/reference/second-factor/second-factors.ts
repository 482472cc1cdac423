import type { SecondFactorSettings } from '../../shared/second-factor/second-factor-config.js'
import type { AccountOwners } from '../account-changes/account-owner.js'
import type { ChangeNotices } from '../account-changes/change-notices.js'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import type { TokenScope } from '../sessions/tokens.js'
import type { AccountStore } from '../store/account-store.js'
import { CodeCheck } from './code-check.js'
import { CodeStep } from './code-step.js'
import { CodeThrottle } from './code-throttle.js'
import { Enrolment } from './enrolment.js'
import { LoginChallenges, type CompleteLogin } from './login-challenges.js'
import type { RememberedBrowserCookies } from './remembered-browser-cookie.js'
import type { RecoveryCodeHasher, SecretBox } from './second-factor-codes.js'
import { SecondFactorChanges } from './second-factor-changes.js'
import type { EnrolmentSecrets } from './second-factor-enrolment-secrets.js'
import { SecondFactorGate } from './second-factor-gate.js'
import type { StepUpCookies } from '../oidc/step-up-cookie.js'

export interface SecondFactorsOptions {
  readonly store: AccountStore
  /** Who may change the account outside a login (server/reference/account-changes/account-owner.ts). */
  readonly owners: AccountOwners
  /** Tells the owner when the app is set up or turned off, and of new recovery codes. */
  readonly changeNotices: ChangeNotices
  readonly settings: SecondFactorSettings
  readonly secrets: SecretBox
  /** Derives each enrolment's pending secret, which binds it to that enrolment. */
  readonly enrolmentSecrets: EnrolmentSecrets
  readonly recoveryCodes: RecoveryCodeHasher
  readonly rememberedBrowsers: RememberedBrowserCookies
  /**
   * The mark an OpenID Connect client's `acr_values` leave (server/reference/oidc/step-up-cookie.ts): a sign-in
   * carrying it asks for the code even in a remembered browser. Absent: no such mark is read.
   */
  readonly stepUp?: Pick<StepUpCookies, 'asked'>
  /** PRODUCT_NAME: the issuer the authenticator app shows. */
  readonly productName: string
  /** Issues the tokens of a login (AfterFirstFactor.completeLogin). */
  readonly completeLogin: CompleteLogin
  /** Counts the locks wrong codes set. */
  readonly metrics: Pick<ReferenceMetrics, 'lockout'>
  readonly now: () => number
  /**
   * The listener these calls answer on, when not the edge's (withScope):
   * only challenges of logins made there are taken.
   */
  readonly scope?: TokenScope
}

/**
 * The reference service's second factor (docs/second-factor.md): TOTP
 * authenticator apps with recovery codes, asked for after a password or
 * Google sign-in when the account has one or an organisation of it
 * requires one. Its parts, one per flow, made from one set of options.
 */
export class SecondFactors {
  /** Asks for the code or the enrolment once a first factor is right. */
  readonly gate: SecondFactorGate
  /** `second-factor/verify`. */
  readonly codeStep: CodeStep
  /** `second-factor/enrol/start` and `/confirm`. */
  readonly enrolment: Enrolment
  /** `second-factor/remove` and `/recovery-codes`. */
  readonly changes: SecondFactorChanges
  /** A code as a proof before a change (reauthentication). */
  readonly codes: CodeCheck

  constructor (private readonly options: SecondFactorsOptions) {
    const challenges = new LoginChallenges(options)
    const throttle = new CodeThrottle(options)
    this.codes = new CodeCheck(options)
    this.gate = new SecondFactorGate({ ...options, challenges })
    this.codeStep = new CodeStep({ ...options, challenges, throttle, codes: this.codes })
    this.enrolment = new Enrolment({ ...options, challenges, throttle })
    this.changes = new SecondFactorChanges(options)
  }

  /**
   * The same calls for another listener (local-network mode's): they take
   * only its logins' challenges, as this one takes none of them, so that
   * neither side's code step hands out the other's tokens. No browser is
   * remembered there: its calls come from another origin, without cookies.
   */
  withScope (scope: TokenScope): SecondFactors {
    return new SecondFactors({ ...this.options, scope, settings: { ...this.options.settings, rememberBrowser: false } })
  }
}
