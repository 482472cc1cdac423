import { parseSuccessAnswer, type SuccessAnswer } from './answers.js'
import { postJson } from './http.js'
import type { RegisterPayload } from './payloads.js'

export const REGISTER_PATH = '/accounts/register'

export async function register (payload: RegisterPayload): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(REGISTER_PATH, payload))
}
