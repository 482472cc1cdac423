import { SPEC_ACCOUNTS_ROUTES, type ProxiedRoute } from '../../shared/accounts-routes.js'

/** The edge serves the reference accounts service under this path (its links and cookies name it). */
export const ACCOUNTS_PATH = '/accounts'

/**
 * The paths the edge proxies under /accounts/ when the embedded reference
 * service is in use: the spec's six, and the service's own (reset
 * completion, token refresh and revocation, the key set, the SSO return
 * leg: the OIDC callback and the SAML hand-over step are top-level GETs, the
 * SAML ACS is the identity provider's cross-site form POST), the links
 * emailed to owners (a new address's confirmation among them), and the
 * removal of what a completed reset lists. The calls that follow a setting
 * (passkeys, the second factor, emailed codes, and SOCIAL_ROUTES while
 * SOCIAL_CONNECTIONS names any connection) are added by the edge from its
 * own reading of the same variables (server/edge/server.ts), as for an own backend.
 */
export const REFERENCE_ACCOUNTS_ROUTES: readonly ProxiedRoute[] = [
  ...SPEC_ACCOUNTS_ROUTES,
  { path: 'resetPassword', kind: 'json' },
  { path: 'token/refresh', kind: 'json' },
  { path: 'token/revoke', kind: 'json' },
  { path: '.well-known/jwks.json', kind: 'read' },
  { path: 'auth/sso/oidc/callback', kind: 'read' },
  { path: 'auth/sso/saml/acs', kind: 'form' },
  { path: 'auth/sso/saml/continue', kind: 'read' },
  { path: 'auth/sso/saml/metadata', kind: 'read' },
  { path: 'verifyEmail', kind: 'read' },
  { path: 'verifyEmailRequest', kind: 'json' },
  { path: 'endSessions', kind: 'read' },
  { path: 'undoChange', kind: 'read' },
  { path: 'confirmEmail', kind: 'read' },
  { path: 'recentFactors/remove', kind: 'json' }
]

