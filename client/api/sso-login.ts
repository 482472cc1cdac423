import { parseLoginAnswer, type LoginAnswer } from './answers.js'
import { postJson } from './http.js'
import type { SsoLoginPayload } from './payloads.js'

export const SSO_LOGIN_PATH = '/accounts/v2/auth/login'

/** Completes an SSO login on return from the identity provider. */
export async function completeSsoLogin (payload: SsoLoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(SSO_LOGIN_PATH, payload, { credentials: 'include' }))
}
