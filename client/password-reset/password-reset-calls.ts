import { parseSuccessAnswer, type SuccessAnswer } from '../../common/http/accounts-answers.js'
import { accountsUrl } from '../http/accounts-url.js'
import { postJson } from '../http/post-json.js'

/* The password reset's calls, one plain async function each (client/sign-in/login-calls.ts says how they answer). */

export async function resetPasswordRequest (payload: { readonly email: string }): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(accountsUrl('resetPasswordRequest'), payload))
}

export interface SetPasswordPayload {
  readonly token: string
  readonly password: string
  readonly confirm_password: string
}

/**
 * Completes a password reset: the reference service's own call, beside the
 * spec's six, so its path is not among the spec's (the edge proxies it for
 * the reference service, server/reference/http/exposed-routes.ts).
 */
export async function setPassword (payload: SetPasswordPayload): Promise<SetPasswordAnswer> {
  const raw = await postJson('/accounts/resetPassword', payload)
  const answer = parseSuccessAnswer(raw)
  return answer.kind === 'success' && raw.kind === 'json' && raw.body.review_token !== undefined ? { ...answer, review: raw.body } : answer
}

/**
 * A completed reset's answer; `review`, its body when it lists what was added
 * lately for the owner to review: parsed (common/account-changes/recent-factors.ts) by the
 * lazy part that shows it, client/account-changes/RecentFactors.tsx, to keep the parser
 * out of the first load.
 */
export type SetPasswordAnswer = SuccessAnswer & { readonly review?: Readonly<Record<string, unknown>> }
