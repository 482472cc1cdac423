import { parseLoginAnswer, type LoginAnswer, type SsoStartAnswer } from '../../common/http/accounts-answers.js'
import { isProviderUrl } from '../../common/http/provider-url.js'
import { parseSocialStartAnswer } from '../../common/social/social-answers.js'
import { SOCIAL_COMPLETION_METHOD } from '../../common/social/social-providers.js'
import { postJson } from '../http/post-json.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'

/*
 * The social connections' calls (docs/social-sign-in.md), one plain async
 * function each, every answer parsed at the boundary and never thrown. Each
 * sends the page's cookies: the `social_state` cookie binds the provider's
 * round trip to this browser. Loaded with the buttons' chunk only.
 */

export interface SocialStartPayload extends LoginContextFields {
  readonly provider: string
  readonly source: 'login' | 'register'
  readonly redirect: string | null
}

/** `auth/login/social`: the provider's authorization address (`url`), followed only when isProviderUrl allows it. */
export async function startSocial (payload: SocialStartPayload): Promise<SsoStartAnswer> {
  const answer = await postJson('/accounts/auth/login/social', payload, { credentials: 'include' })
  const parsed = parseSocialStartAnswer(answer)
  return parsed.kind === 'redirect' && !isProviderUrl(parsed.url) ? { kind: 'failed' } : parsed
}

export interface SocialLoginPayload extends LoginContextFields {
  readonly provider: string
  /** The single-use id of the provider's return (SocialReturn). */
  readonly id: string
}

/** `v2/auth/login` with `login_method` SOCIAL: a login's answers (tokens, a second factor's challenge, a refusal). */
export async function completeSocialLogin (payload: SocialLoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson('/accounts/v2/auth/login', { login_method: SOCIAL_COMPLETION_METHOD, ...payload }, { credentials: 'include' }))
}
