import { parseSsoStartAnswer, type SsoStartAnswer } from './answers.js'
import { postJson } from './http.js'
import type { SsoStartPayload } from './payloads.js'

export const SSO_START_PATH = '/accounts/auth/login/sso'

/** Starts single sign-on; the answer's `sso_url` is where the browser goes next. */
export async function startSso (payload: SsoStartPayload): Promise<SsoStartAnswer> {
  return parseSsoStartAnswer(await postJson(SSO_START_PATH, payload, { credentials: 'include' }))
}
