import type { AccountClaims } from '../account-changes/account-claims.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import type { Parsed } from '../http/validation.js'
import { say } from '../languages/answer-texts.js'
import type { LoginContext } from '../sessions/tokens.js'
import type { AfterFirstFactor } from '../sign-in/after-first-factor.js'
import type { AccountStore } from '../store/account-store.js'
import type { SsoRequirement } from '../sso/sso-requirement.js'
import type { GoogleCredential, GoogleTokenVerifier } from './google-id-token.js'

export interface GoogleSignInOptions {
  readonly store: AccountStore
  readonly verifyGoogleToken: GoogleTokenVerifier
  /** An unverified account with Google's address passes to whoever Google vouches for. */
  readonly claims: AccountClaims
  readonly after: AfterFirstFactor
  /** A domain that signs in only with single sign-on signs in with no Google account (sso-requirement.ts). */
  readonly ssoRequirement: SsoRequirement
}

/** `v2/auth/login` with `login_method` GOOGLE: the ID token decides who this is; the account must exist already. */
export class GoogleSignIn {
  constructor (private readonly options: GoogleSignInOptions) {}

  async login (credential: GoogleCredential, context: Parsed<LoginContext>, facts: RequestFacts): Promise<Answer> {
    if (!context.ok) return error(400, say(facts, context.error))
    const verification = await this.options.verifyGoogleToken(credential)
    if ('refused' in verification) {
      logAuthEvent(facts, 'google.login.failed', { clientAddress: facts.clientAddress, reason: verification.refused })
      return error(401, say(facts, 'google.loginFailed'))
    }
    const { subject, email, boundToPage } = verification.identity
    const { ssoRequirement } = this.options
    // Google's address first, before any account is read or claimed; then the address of the account
    // the Google identity is tied to, which may be another (an account of a required domain keeps to SSO).
    const ssoRequired = ssoRequirement.refusalFor(email, 'google', facts)
    if (ssoRequired !== null) return ssoRequired
    const account = await this.options.store.findAccountByGoogleSubject(subject) ?? await this.options.claims.claimForGoogle(email, subject, facts)
    if (account === null) {
      logAuthEvent(facts, 'google.login.failed', { email, reason: 'no account' })
      return error(404, say(facts, 'google.noAccount'))
    }
    const accountRequired = ssoRequirement.refusalFor(account.email, 'google', facts)
    if (accountRequired !== null) return accountRequired
    const { after } = this.options
    const secondFactor = await after.secondFactorStep(account, context.value, 'google', facts, undefined, { provesBrowser: boundToPage })
    return secondFactor ?? await after.completeLogin(account, context.value, 'google', facts, { provesBrowser: boundToPage })
  }
}
