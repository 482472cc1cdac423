import { SOCIAL_COMPLETION_METHOD, SOCIAL_PROVIDER_ID_FORMAT } from '../../../common/social/social-providers.js'
import { asBody, parseLoginContext, type Parsed } from '../http/validation.js'
import type { LoginContext } from '../sessions/tokens.js'
import type { SsoContext } from '../sso/page-return.js'
import { parseStartContext } from '../sso/requests.js'

/** The social calls' bodies, parsed at the boundary into typed values or a message the page can show. */

const PAGE_ID_FORMAT = /^[\w-]{43}$/

function parseProvider (value: unknown): Parsed<string> {
  return typeof value === 'string' && SOCIAL_PROVIDER_ID_FORMAT.test(value) ? { ok: true, value } : { ok: false, error: 'social.unknownProvider' }
}

/** `auth/login/social`: `{provider, source, redirect?, resource_type?, cluster_name?, insecure_allowed_orgs?}`. */
export function parseSocialStart (raw: unknown): Parsed<{ readonly provider: string, readonly context: SsoContext }> {
  const body = asBody(raw)
  const provider = parseProvider(body.provider)
  if (!provider.ok) return provider
  const context = parseStartContext(body)
  if (!context.ok) return context
  return { ok: true, value: { provider: provider.value, context: context.value } }
}

/** `account/social/link/start` and `account/social/unlink`: `{provider}`. */
export function parseProviderBody (raw: unknown): Parsed<string> {
  return parseProvider(asBody(raw).provider)
}

/** The single-use id of the return to the page. */
export function parsePageId (value: unknown): Parsed<string> {
  return typeof value === 'string' && PAGE_ID_FORMAT.test(value) ? { ok: true, value } : { ok: false, error: 'social.linkInvalid' }
}

export interface SocialLoginCompletion {
  readonly provider: string
  readonly id: string
  readonly context: LoginContext
}

/** `v2/auth/login` with `login_method` SOCIAL: `{login_method, provider, id, insecure_allowed_orgs?, resource_type?, cluster_name?}`. */
export function parseSocialLoginCompletion (raw: unknown): Parsed<SocialLoginCompletion> {
  const body = asBody(raw)
  if (body.login_method !== SOCIAL_COMPLETION_METHOD) return { ok: false, error: 'method.loginUnsupported' }
  const provider = parseProvider(body.provider)
  if (!provider.ok) return provider
  const id = parsePageId(body.id)
  if (!id.ok) return id
  const context = parseLoginContext(body)
  if (!context.ok) return context
  return { ok: true, value: { provider: provider.value, id: id.value, context: context.value } }
}
