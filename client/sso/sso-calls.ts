import {
  parseLoginAnswer, parseSsoStartAnswer, parseSuccessAnswer, type LoginAnswer, type SsoStartAnswer, type SuccessAnswer
} from '../../common/http/accounts-answers.js'
import { accountsUrl } from '../http/accounts-url.js'
import { postJson } from '../http/post-json.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'

/*
 * Single sign-on's calls, one plain async function each (client/sign-in/login-calls.ts
 * says how they answer). Each sends the page's cookies: the SSO state cookie must travel.
 */

export interface SsoStartPayload extends LoginContextFields {
  readonly email: string
  readonly source: 'login' | 'register'
  readonly redirect: string | null
}

/** Starts single sign-on; the answer's `sso_url` is where the browser goes next. */
export async function startSso (payload: SsoStartPayload): Promise<SsoStartAnswer> {
  return parseSsoStartAnswer(await postJson(accountsUrl('auth/login/sso'), payload, { credentials: 'include' }))
}

export interface SsoLoginPayload extends LoginContextFields {
  readonly email: string
  readonly login_method: 'SAML' | 'OIDC'
  readonly id: string
}

/** Completes an SSO login on return from the identity provider. */
export async function completeSsoLogin (payload: SsoLoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(accountsUrl('v2/auth/login'), payload, { credentials: 'include' }))
}

export interface SsoRegisterPayload {
  readonly register_method: 'SAML' | 'OIDC'
  readonly id: string
}

/** Completes an SSO registration on return from the identity provider. */
export async function completeSsoRegister (payload: SsoRegisterPayload): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(accountsUrl('auth/register'), payload, { credentials: 'include' }))
}
