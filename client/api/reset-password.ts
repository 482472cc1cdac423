import { parseSuccessAnswer, type SuccessAnswer } from './answers.js'
import { postJson } from './http.js'

export const RESET_PASSWORD_REQUEST_PATH = '/accounts/resetPasswordRequest'

export async function requestPasswordReset (payload: { readonly email: string }): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(RESET_PASSWORD_REQUEST_PATH, payload))
}
