import { parseSuccessAnswer, type SuccessAnswer } from './answers.js'
import { postJson } from './http.js'

export const GOOGLE_REGISTER_PATH = '/accounts/auth/register'

export async function googleRegister (credential: string): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(GOOGLE_REGISTER_PATH, { register_method: 'GOOGLE' }, { bearer: credential }))
}
