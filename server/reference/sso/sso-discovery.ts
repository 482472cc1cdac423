import { errorAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { asBody, parseEmail } from '../http/validation.js'
import { say } from '../languages/answer-texts.js'
import type { SsoRequirement } from './sso-requirement.js'

/** The reference service's path of SSO_DISCOVERY's call (the edge serves it under /accounts: SSO_DISCOVERY_ROUTES). */
export const SSO_DISCOVERY_PATH = '/auth/sso/discover'

/**
 * `auth/sso/discover {email}` (SSO_DISCOVERY, docs/sso.md "Found by the
 * address"): 200 `{sso: false}` or `{sso: true, required}` from the address's
 * domain alone, 400 `{error}` for an address that is not one. Nothing is
 * read from the store and nothing is logged with the address: the answer
 * tells only what the SSO modal's start already tells, whether the domain
 * has a connection.
 */
export function discoverSso (requirement: SsoRequirement, body: unknown, facts: RequestFacts): Answer {
  const email = parseEmail(asBody(body).email)
  if (!email.ok) return errorAnswer(400, say(facts, email.error))
  return { status: 200, body: requirement.discover(email.value) }
}
