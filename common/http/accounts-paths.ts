/**
 * The accounts calls of the spec (section 7), relative to `/accounts/`: the
 * page posts to them and the edge proxies exactly these to ACCOUNTS_URL.
 */
export const SPEC_ACCOUNTS_PATHS = [
  'v2/login',
  'register',
  'resetPasswordRequest',
  'v2/auth/login',
  'auth/register',
  'auth/login/sso'
] as const

export type SpecAccountsPath = typeof SPEC_ACCOUNTS_PATHS[number]

/**
 * The version of the accounts API (docs/accounts-api.openapi.yaml,
 * `info.version`) that this page and edge speak: a backend conforming to this
 * major version, at this minor version or later, serves them. A test keeps
 * it equal to the document's.
 */
export const ACCOUNTS_API_VERSION = '1.5.0'
