import type { SpecAccountsPath } from '../../common/accounts-paths.js'
import {
  parseLoginAnswer, parsePasswordLoginAnswer, parseSsoStartAnswer, parseSuccessAnswer,
  type LoginAnswer, type PasswordLoginAnswer, type SsoStartAnswer, type SuccessAnswer
} from '../../common/accounts-answers.js'
import { postJson } from './http.js'

/*
 * The accounts calls of spec §7, one plain async function each, with their
 * request bodies (the field names of spec §3). Every function answers with a
 * union parsed in answers.ts and never throws; http.ts is the one place that
 * calls fetch.
 */

/** Typed against the paths the edge proxies, so that a call the edge would refuse does not compile. */
const accountsUrl = (path: SpecAccountsPath): string => `/accounts/${path}`

/** The context every login call carries. */
export interface LoginContextFields {
  readonly insecure_allowed_orgs: readonly string[]
  readonly resource_type: string | null
  readonly cluster_name: string | null
}

export interface LoginPayload extends LoginContextFields {
  readonly email: string
  readonly password: string
}

/** Email and password login (spec §7 "Login"); the accounts service may refuse an address not verified yet. */
export async function login (payload: LoginPayload): Promise<PasswordLoginAnswer> {
  return parsePasswordLoginAnswer(await postJson(accountsUrl('v2/login'), payload))
}

/**
 * Login in local-network mode: the payload goes straight from the browser to
 * `{scheme}://{host}:{port}/authenticate`, a URL already checked against the
 * allowed hosts (common/local-accounts.ts). No cookies travel.
 */
export async function localLogin (authenticateUrl: string, payload: LoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(authenticateUrl, payload, { mode: 'cors', credentials: 'omit' }))
}

export interface RegisterPayload {
  readonly first_name: string
  readonly last_name: string
  readonly email: string
  readonly password: string
  readonly confirm_password: string
}

export async function register (payload: RegisterPayload): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(accountsUrl('register'), payload))
}

export async function resetPasswordRequest (payload: { readonly email: string }): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson(accountsUrl('resetPasswordRequest'), payload))
}

export interface GoogleLoginPayload extends LoginContextFields {
  readonly email: string
  readonly login_method: 'GOOGLE'
}

/** The page's nonce secret (client/lib/google-nonce.ts), in the body of a Google call, when it has one. */
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

export interface SetPasswordPayload {
  readonly token: string
  readonly password: string
  readonly confirm_password: string
}

/**
 * Completes a password reset: the reference service's own call, beside the
 * spec's six, so its path is not among the spec's (the edge proxies it for
 * the reference service, server/reference/http/exposed-routes.ts).
 */
export async function setPassword (payload: SetPasswordPayload): Promise<SetPasswordAnswer> {
  const raw = await postJson('/accounts/resetPassword', payload)
  const answer = parseSuccessAnswer(raw)
  return answer.kind === 'success' && raw.kind === 'json' && raw.body.review_token !== undefined ? { ...answer, review: raw.body } : answer
}

/**
 * A completed reset's answer; `review`, its body when it lists what was added
 * lately for the owner to review: parsed (common/recent-factors.ts) by the
 * lazy part that shows it, client/views/RecentFactors.tsx, to keep the parser
 * out of the first load.
 */
export type SetPasswordAnswer = SuccessAnswer & { readonly review?: Readonly<Record<string, unknown>> }

/**
 * Asks for a new link to verify `email`, after a login refused because the
 * address is not verified yet. The reference service's own call, like
 * setPassword: the edge proxies it only where the service names it
 * (server/reference/http/exposed-routes.ts).
 */
export async function verifyEmailRequest (payload: { readonly email: string }): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/verifyEmailRequest', payload))
}
