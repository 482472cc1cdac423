import type { AccountClaims } from '../account-changes/account-claims.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer as success, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import type { AccountStore } from '../store/account-store.js'
import type { SsoRequirement } from '../sso/sso-requirement.js'
import type { GoogleCredential, GoogleTokenVerifier } from './google-id-token.js'

export interface GoogleRegistrationOptions {
  readonly store: AccountStore
  readonly verifyGoogleToken: GoogleTokenVerifier
  /** An unverified account with Google's address passes to whoever Google vouches for. */
  readonly claims: AccountClaims
  readonly now: () => number
  /** A domain that signs in only with single sign-on registers no Google account (sso-requirement.ts). */
  readonly ssoRequirement: SsoRequirement
}

/**
 * `auth/register` with `register_method` GOOGLE: an account tied to the
 * Google subject. An existing account with the same address is tied to it
 * only while that address was never verified (it is then claimed:
 * AccountClaims.claimForGoogle); a verified one is not linked on an email
 * match alone.
 */
export class GoogleRegistration {
  constructor (private readonly options: GoogleRegistrationOptions) {}

  async register (credential: GoogleCredential, facts: RequestFacts): Promise<Answer> {
    const verification = await this.options.verifyGoogleToken(credential)
    if ('refused' in verification) {
      logAuthEvent(facts, 'google.register.failed', { clientAddress: facts.clientAddress, reason: verification.refused })
      return error(401, say(facts, 'google.registerFailed'))
    }
    const { subject, email } = verification.identity
    const ssoRequired = this.options.ssoRequirement.refusalFor(email, 'google', facts)
    if (ssoRequired !== null) return ssoRequired
    // Google vouches for the address: the verifier refuses a token whose email_verified is not true.
    const result = await this.options.store.createAccount({
      email, firstName: null, lastName: null, passwordHash: null, googleSubject: subject, emailVerifiedAt: this.options.now()
    })
    if ('conflict' in result) {
      if (result.conflict === 'email' && await this.options.claims.claimForGoogle(email, subject, facts) !== null) {
        return success(say(facts, 'google.claimed'))
      }
      logAuthEvent(facts, 'google.register.failed', { email, reason: result.conflict })
      return error(409, say(facts, result.conflict === 'google-subject' ? 'google.alreadyRegistered' : 'google.emailTaken'))
    }
    logAuthEvent(facts, 'google.register.succeeded', { accountId: result.created.id, clientAddress: facts.clientAddress })
    return success(say(facts, 'google.registered'))
  }
}
