import { parseLoginAnswer, type LoginAnswer } from './answers.js'
import { postJson } from './http.js'
import type { GoogleLoginPayload } from './payloads.js'

export const GOOGLE_LOGIN_PATH = '/accounts/v2/auth/login'

/** Google login: the credential (ID token) goes as the bearer, the email in the body. */
export async function googleLogin (credential: string, payload: GoogleLoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(GOOGLE_LOGIN_PATH, payload, { bearer: credential }))
}
