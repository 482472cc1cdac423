import { parseLoginAnswer, type LoginAnswer } from './answers.js'
import { postJson } from './http.js'
import type { LoginPayload } from './payloads.js'

/**
 * Login in local-network mode: the payload goes straight from the browser to
 * `{scheme}://{host}:{port}/authenticate`, a URL already checked against the
 * allowed hosts (common/local-accounts.ts). No cookies travel.
 */
export async function localLogin (authenticateUrl: string, payload: LoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(authenticateUrl, payload, { mode: 'cors', credentials: 'omit' }))
}
