import { parseLoginAnswer, type LoginAnswer } from './answers.js'
import { postJson } from './http.js'
import type { LoginPayload } from './payloads.js'

export const LOGIN_PATH = '/accounts/v2/login'

/** Email and password login (spec §7 "Login"). */
export async function login (payload: LoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(LOGIN_PATH, payload))
}
