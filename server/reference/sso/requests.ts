import type { LoginContext } from '../sessions/tokens.js'
import { asBody, parseEmail, parseLoginContext, type Body, type Parsed } from '../http/validation.js'
import type { SsoContext, SsoProtocol } from './page-return.js'

/** The page's SSO calls, parsed at the boundary into typed values or a message it can show. */

const REDIRECT_MAX_LENGTH = 2048

// A redirect is handed back to the page as given, so only what could break the
// answer is refused here; server/reference/http/validation.ts's wider set also keeps bidi and
// zero-width characters out of stored names and addresses.
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/
const PAGE_ID_FORMAT = /^[\w-]{43}$/

export interface SsoStart {
  readonly email: string
  readonly context: SsoContext
}

/**
 * `auth/login/sso`: `{email, source, redirect, resource_type, cluster_name,
 * insecure_allowed_orgs}`. The redirect target is carried back as given: the
 * page decides whether it may go there, as it does for every login.
 */
export function parseSsoStart (raw: unknown): Parsed<SsoStart> {
  const body = asBody(raw)
  const email = parseEmail(body.email)
  if (!email.ok) return email
  const context = parseStartContext(body)
  if (!context.ok) return context
  return { ok: true, value: { email: email.value, context: context.value } }
}

/**
 * What a start of a provider's leg (single sign-on's, a social connection's)
 * carries back to the page: `{source, redirect, resource_type, cluster_name, insecure_allowed_orgs}`.
 */
export function parseStartContext (body: Body): Parsed<SsoContext> {
  const source = body.source ?? 'login'
  if (source !== 'login' && source !== 'register') return { ok: false, error: 'sso.sourceInvalid' }
  const redirect = body.redirect ?? null
  if (redirect !== null && (typeof redirect !== 'string' || redirect.length > REDIRECT_MAX_LENGTH || CONTROL_CHARACTERS.test(redirect))) {
    return { ok: false, error: 'sso.redirectInvalid' }
  }
  const context = parseLoginContext(body)
  if (!context.ok) return context
  return {
    ok: true,
    value: {
      source,
      redirect: redirect === '' ? null : redirect,
      resourceType: context.value.resourceType,
      clusterName: context.value.clusterName,
      organizations: context.value.organizations
    }
  }
}

export interface SsoCompletion {
  readonly protocol: SsoProtocol
  /** The single-use id from the return link. */
  readonly id: string
}

export interface SsoLoginCompletion extends SsoCompletion {
  readonly email: string
  readonly context: LoginContext
}

function parseCompletion (body: Body, methodField: 'login_method' | 'register_method'): Parsed<SsoCompletion> {
  const method = body[methodField]
  if (method !== 'OIDC' && method !== 'SAML') return { ok: false, error: 'method.loginUnsupported' }
  if (typeof body.id !== 'string' || !PAGE_ID_FORMAT.test(body.id)) {
    return { ok: false, error: 'sso.linkInvalid' }
  }
  return { ok: true, value: { protocol: method === 'OIDC' ? 'oidc' : 'saml', id: body.id } }
}

/** `v2/auth/login` with `login_method` OIDC or SAML: `{email, login_method, id, insecure_allowed_orgs, resource_type, cluster_name}`. */
export function parseSsoLoginCompletion (raw: unknown): Parsed<SsoLoginCompletion> {
  const body = asBody(raw)
  const completion = parseCompletion(body, 'login_method')
  if (!completion.ok) return completion
  const email = parseEmail(body.email)
  if (!email.ok) return email
  const context = parseLoginContext(body)
  if (!context.ok) return context
  return { ok: true, value: { ...completion.value, email: email.value, context: context.value } }
}

/** `auth/register` with `register_method` OIDC or SAML: `{register_method, id}`. */
export function parseSsoRegisterCompletion (raw: unknown): Parsed<SsoCompletion> {
  return parseCompletion(asBody(raw), 'register_method')
}
