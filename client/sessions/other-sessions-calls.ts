import { parseSuccessAnswer, type SuccessAnswer } from '../../common/http/accounts-answers.js'
import { postJson } from '../http/post-json.js'

/*
 * Signing out of the account's other sessions (docs/account-changes.md), a
 * plain async function with the account's auth token as the bearer. Loaded
 * with the lazy parts that change an account only.
 */

/**
 * `sessions/end-others`: every other session of the account ends; this one
 * goes on. A session that has ended itself is refused with the service's text.
 */
export async function endOtherSessions (auth: string): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/sessions/end-others', {}, { bearer: auth }))
}
