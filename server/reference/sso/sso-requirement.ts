import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { connectionDomainOf, type SsoConnection } from './connections.js'

/** The refusal's text: the page shows it and offers "Continue with single sign-on" (docs/sso.md, "Found by the address"). */
const SSO_REQUIRED: AnswerKey = 'sso.required'

/** What `auth/sso/discover` answers for an address: whether its domain has a connection, and whether that connection is required. */
export type SsoDiscoveryAnswer =
  | { readonly sso: false }
  | { readonly sso: true, readonly required: boolean }

/**
 * Which domains sign in with single sign-on (SSO_CONNECTIONS), and which only
 * so (`"required": true`). Decided from the address's domain alone, as the
 * SSO start finds its connection (connections.ts connectionDomainOf: any case,
 * IDNs in either form, compatibility characters folded), never from the
 * store: the answer and the work are the same whether an account exists.
 *
 * One rule for every way in that is not single sign-on: the password's
 * login and registration, the emailed code's send and login, Google's and
 * the social connections' completions each ask `refusalFor` before any other
 * work (no password is hashed, no account is read), so a required domain is
 * refused alike for an address with an account and one without.
 */
export class SsoRequirement {
  private readonly byDomain: ReadonlyMap<string, SsoConnection>

  constructor (connections: readonly SsoConnection[]) {
    this.byDomain = new Map(connections.map((connection) => [connection.domain, connection]))
  }

  /** `auth/sso/discover`'s answer for an address (already checked as one). */
  discover (email: string): SsoDiscoveryAnswer {
    const connection = this.connectionOf(email)
    return connection === undefined ? { sso: false } : { sso: true, required: connection.required }
  }

  /** Whether the address's domain signs in with single sign-on only. */
  requiredFor (email: string): boolean {
    return this.connectionOf(email)?.required === true
  }

  /**
   * The 403 for a sign-in other than single sign-on with an address of a
   * required domain (logged with the address pseudonymised, and `method`,
   * the way in that was refused), or null when the address may go on.
   */
  refusalFor (email: string, method: string, facts: RequestFacts): Answer | null {
    if (!this.requiredFor(email)) return null
    logAuthEvent(facts, 'sso.required-refused', { email, clientAddress: facts.clientAddress, method })
    return errorAnswer(403, say(facts, SSO_REQUIRED), { sso_required: true })
  }

  private connectionOf (email: string): SsoConnection | undefined {
    const domain = connectionDomainOf(email)
    return domain === null ? undefined : this.byDomain.get(domain)
  }
}
