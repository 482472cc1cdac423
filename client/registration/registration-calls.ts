import { parseSuccessAnswer, type SuccessAnswer } from '../../common/http/accounts-answers.js'
import { accountsUrl } from '../http/accounts-url.js'
import { postJson } from '../http/post-json.js'

/* Registration's calls, one plain async function each (client/sign-in/login-calls.ts says how they answer). */

export interface RegisterPayload {
  readonly first_name: string
  readonly last_name: string
  readonly email: string
  readonly password: string
  readonly confirm_password: string
}

export async function register (payload: RegisterPayload): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(accountsUrl('register'), payload))
}

/**
 * Asks for a new link to verify `email`, after a login refused because the
 * address is not verified yet. The reference service's own call, beside the
 * spec's six: the edge proxies it only where the service names it
 * (server/reference/http/exposed-routes.ts).
 */
export async function verifyEmailRequest (payload: { readonly email: string }): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/verifyEmailRequest', payload))
}
