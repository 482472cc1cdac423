import type { AnswerText } from '../languages/answer-texts.js'
import { parseEmail } from '../http/validation.js'
import { connectionDomainOf } from './connections.js'

/** Who an identity provider says the visitor is, after its answer has been verified. */
export interface AssertedIdentity {
  /** The provider's stable identifier for the user (OIDC `sub`, SAML NameID). */
  readonly subject: string
  readonly email: string | null
  /** What the provider says about the address; null when it says nothing. */
  readonly emailVerified: boolean | null
}

export interface AcceptedIdentity {
  readonly subject: string
  readonly email: string
}

/** Accepted, or refused with a message for the visitor and a reason for the log. */
export type Acceptance =
  | { readonly ok: true, readonly value: AcceptedIdentity }
  | { readonly ok: false, readonly error: AnswerText, readonly reason: string }

/**
 * Whether a verified answer may sign someone in for `domain`. The operator
 * bound the provider to that one domain: an address outside it is refused,
 * so a provider cannot speak for addresses it does not own.
 */
export function acceptIdentity (identity: AssertedIdentity, domain: string): Acceptance {
  if (identity.email === null) {
    return { ok: false, error: 'sso.noEmail', reason: 'no email in the answer' }
  }
  const email = parseEmail(identity.email)
  if (!email.ok) {
    return { ok: false, error: 'sso.emailInvalid', reason: 'invalid email' }
  }
  if (connectionDomainOf(email.value) !== domain) {
    return {
      ok: false,
      error: { key: 'sso.outsideDomain', params: { domain } },
      reason: 'email outside the connection domain'
    }
  }
  if (identity.emailVerified === false) {
    return { ok: false, error: 'sso.emailNotVerified', reason: 'email not verified' }
  }
  return { ok: true, value: { subject: identity.subject, email: email.value } }
}
