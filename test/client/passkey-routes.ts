import type { ProxiedRoute } from '../../server/shared/accounts-routes.js'

/**
 * The passkey calls of docs/passkeys.md, as the edge proxies them: the page's
 * tests name them until the edge does (the service side of issue 26).
 */
export const PASSKEY_ROUTES: readonly ProxiedRoute[] = [
  { path: 'passkeys/login/options', kind: 'json' },
  { path: 'passkeys/login', kind: 'json' },
  { path: 'passkeys/register/options', kind: 'json' },
  { path: 'passkeys/register', kind: 'json' }
]
