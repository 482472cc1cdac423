import { parseLoginAnswer, parseSuccessAnswer, type LoginAnswer, type SuccessAnswer } from '../../common/http/accounts-answers.js'
import { accountsUrl } from '../http/accounts-url.js'
import { postJson } from '../http/post-json.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'

/* Google's calls, one plain async function each (client/sign-in/login-calls.ts says how they answer). */

export interface GoogleLoginPayload extends LoginContextFields {
  readonly email: string
  readonly login_method: 'GOOGLE'
}

/** The page's nonce secret (client/google/google-nonce.ts), in the body of a Google call, when it has one. */
function nonceField (nonceSecret: string | null): { readonly google_nonce_secret?: string } {
  return nonceSecret === null ? {} : { google_nonce_secret: nonceSecret }
}

/** Google login: the credential (ID token) goes as the bearer, the email and the page's nonce secret in the body. */
export async function googleLogin (credential: string, nonceSecret: string | null, payload: GoogleLoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(accountsUrl('v2/auth/login'), { ...payload, ...nonceField(nonceSecret) }, { bearer: credential }))
}

export async function googleRegister (credential: string, nonceSecret: string | null): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(accountsUrl('auth/register'), { register_method: 'GOOGLE', ...nonceField(nonceSecret) }, { bearer: credential }))
}
