import { parseSuccessAnswer, type SuccessAnswer } from './answers.js'
import { postJson } from './http.js'
import type { SetPasswordPayload } from './payloads.js'

/** Completes a password reset (the reference service's own call, beside the spec's six). */
export const SET_PASSWORD_PATH = '/accounts/resetPassword'

export async function setPassword (payload: SetPasswordPayload): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(SET_PASSWORD_PATH, payload))
}
