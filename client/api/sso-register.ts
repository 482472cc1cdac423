import { parseSuccessAnswer, type SuccessAnswer } from './answers.js'
import { postJson } from './http.js'
import type { SsoRegisterPayload } from './payloads.js'

export const SSO_REGISTER_PATH = '/accounts/auth/register'

/** Completes an SSO registration on return from the identity provider. */
export async function completeSsoRegister (payload: SsoRegisterPayload): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(SSO_REGISTER_PATH, payload, { credentials: 'include' }))
}
