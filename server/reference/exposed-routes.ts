import { SPEC_ACCOUNTS_ROUTES, type ProxiedRoute } from '../accounts-proxy.js'

/**
 * The paths the edge proxies under /accounts/ when the embedded reference
 * service is in use: the spec's six, and the service's own (reset
 * completion, token refresh and revocation, the key set).
 */
export const REFERENCE_ACCOUNTS_ROUTES: readonly ProxiedRoute[] = [
  ...SPEC_ACCOUNTS_ROUTES,
  { path: 'resetPassword', kind: 'json' },
  { path: 'token/refresh', kind: 'json' },
  { path: 'token/revoke', kind: 'json' },
  { path: '.well-known/jwks.json', kind: 'read' }
]
