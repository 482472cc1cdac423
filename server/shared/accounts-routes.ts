import { SPEC_ACCOUNTS_PATHS } from '../../common/http/accounts-paths.js'

/**
 * How one path under `/accounts/` is proxied. The edge proxies the spec's
 * paths; the reference service names the extra ones it serves behind the edge
 * (server/reference/http/exposed-routes.ts), so the type lives where both see it.
 * - `json`: a same-origin JSON POST from the page (the spec's calls), answered
 *   with JSON only (see server/edge/upstream/json-answers.ts).
 * - `form`: a cross-site form POST, such as a SAML identity provider's.
 * - `read`: a GET that any origin may make (a key set, an SSO callback).
 */
export interface ProxiedRoute {
  readonly path: string
  readonly kind: 'json' | 'form' | 'read'
}

export const SPEC_ACCOUNTS_ROUTES: readonly ProxiedRoute[] = SPEC_ACCOUNTS_PATHS.map((path) => ({ path, kind: 'json' }))

/**
 * The passkey calls (docs/passkeys.md), proxied when PASSKEYS is true, with
 * `token/revoke` (the page revokes the tokens of a passkey sign-in the
 * domain check refuses), which an own backend must then answer too.
 */
export const PASSKEY_ROUTES: readonly ProxiedRoute[] = [
  { path: 'passkeys/login/options', kind: 'json' },
  { path: 'passkeys/login', kind: 'json' },
  { path: 'passkeys/register/options', kind: 'json' },
  { path: 'passkeys/register', kind: 'json' },
  { path: 'passkeys/reauthenticate/options', kind: 'json' },
  { path: 'passkeys/reauthenticate', kind: 'json' },
  { path: 'passkeys/remove', kind: 'json' },
  { path: 'passkeys/list', kind: 'json' },
  { path: 'passkeys/rename', kind: 'json' },
  { path: 'reauthenticate', kind: 'json' },
  { path: 'sessions/end-others', kind: 'json' },
  { path: 'token/revoke', kind: 'json' }
]

/** The second-factor calls (docs/second-factor.md), proxied when SECOND_FACTOR is true. */
export const SECOND_FACTOR_ROUTES: readonly ProxiedRoute[] = [
  { path: 'second-factor/verify', kind: 'json' },
  { path: 'second-factor/enrol/start', kind: 'json' },
  { path: 'second-factor/enrol/confirm', kind: 'json' },
  { path: 'second-factor/remove', kind: 'json' },
  { path: 'second-factor/recovery-codes', kind: 'json' },
  { path: 'second-factor/forget-browsers', kind: 'json' },
  { path: 'reauthenticate', kind: 'json' },
  { path: 'sessions/end-others', kind: 'json' }
]

/**
 * The emailed sign-in code's calls (docs/email-codes.md), proxied when
 * EMAIL_CODES is on: ask for a code, sign in (or sign up) with it.
 * `reauthenticate` takes a code too, for a fresh proof of an account
 * without a password or a passkey.
 */
export const EMAIL_CODE_ROUTES: readonly ProxiedRoute[] = [
  { path: 'email-code/send', kind: 'json' },
  { path: 'email-code/login', kind: 'json' },
  { path: 'reauthenticate', kind: 'json' }
]

/**
 * The social connections' calls (docs/social-sign-in.md), proxied when SOCIAL_CONNECTIONS names any:
 * the start (`{url}` and the `social_state` cookie), the provider's return (a GET to `callback`, or
 * Apple's cross-site `form_post` to `form-post`, then the same-site GET `continue` that checks the cookie), and the account view's
 * link and unlink. The completion is `v2/auth/login` with `login_method` SOCIAL.
 */
export const SOCIAL_ROUTES: readonly ProxiedRoute[] = [
  { path: 'auth/login/social', kind: 'json' },
  // Each connection returns to its own address (`:provider`, its id), so that an answer is taken only for its own sign-ins.
  { path: 'auth/social/callback/:provider', kind: 'read' },
  { path: 'auth/social/form-post/:provider', kind: 'form' },
  { path: 'auth/social/continue', kind: 'read' },
  { path: 'account/social/link/start', kind: 'json' },
  { path: 'account/social/link', kind: 'json' },
  { path: 'account/social/unlink', kind: 'json' }
]

/** SSO_DISCOVERY's call: whether an address's domain signs in with single sign-on (docs/sso.md, "Found by the address"). */
export const SSO_DISCOVERY_ROUTES: readonly ProxiedRoute[] = [
  { path: 'auth/sso/discover', kind: 'json' }
]

/**
 * The account view's calls (docs/account-changes.md) that follow no setting,
 * proxied to every accounts service: the view asks `account/overview` what
 * the backend serves, and a backend that answers it 404 is offered none of
 * them. The passkey and second-factor parts of the view are in the lists above.
 */
export const ACCOUNT_ROUTES: readonly ProxiedRoute[] = [
  { path: 'account/overview', kind: 'json' },
  { path: 'sessions/list', kind: 'json' },
  { path: 'sessions/end', kind: 'json' },
  { path: 'sessions/end-others', kind: 'json' },
  // The password's fresh proof, which a password change, an address change and a deletion ask for whatever factors are on.
  { path: 'reauthenticate', kind: 'json' },
  { path: 'activity/list', kind: 'json' },
  { path: 'password/change', kind: 'json' },
  { path: 'email/change', kind: 'json' },
  { path: 'email/confirm', kind: 'json' },
  { path: 'account/delete', kind: 'json' }
]

/**
 * `routes` with the groups an operator turned on (each group given, or `false` when its setting is off), each
 * path once: PASSKEY_ROUTES with PASSKEYS, SECOND_FACTOR_ROUTES with SECOND_FACTOR, EMAIL_CODE_ROUTES with
 * EMAIL_CODES, and ACCOUNT_ROUTES always.
 */
export function withRoutes (routes: readonly ProxiedRoute[], ...groups: ReadonlyArray<readonly ProxiedRoute[] | false>): readonly ProxiedRoute[] {
  const all = [...routes]
  for (const route of groups.flatMap((group) => group === false ? [] : group)) {
    if (!all.some((listed) => listed.path === route.path)) all.push(route)
  }
  return all
}
