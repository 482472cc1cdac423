import { parameterName } from '../../../common/page/page-render.js'
import { NO_STORE } from '../http/security-headers.js'

/**
 * The Cache-Control of an opening view's plain GET: kept by the browser
 * alone, revalidated on every use, and so eligible for the back/forward
 * cache, which `no-store` keeps out. What a restored page could bring back is
 * only what the visitor typed, and the page clears that as it leaves
 * (client/page/back-forward-cache.ts). docs/security.md ("The back/forward
 * cache") says why this is safe, and which answers stay no-store.
 */
export const REVALIDATE_PRIVATELY = 'private, no-cache'

/**
 * The parameters an opening view's address may carry and still be kept: the
 * view, the product's context and the page's settings, none of them free
 * text, personal data or a secret. Anything else (login_hint, email, id,
 * error, home_page_banner, a reset token, a return from single sign-on, a
 * parameter the page does not know) makes the answer no-store: an allowlist,
 * so that a parameter added later is private until someone says otherwise.
 */
const KEPT_PARAMETERS: ReadonlySet<string> = new Set([
  'view', 'notice', 'login_method', 'redirect', 'allowed_org', 'insecure_allowed_orgs', 'resource_type', 'cluster_name',
  'supports_domain_auth_check', 'local_accounts_host', 'local_accounts_port', 'ui_locales'
])

/**
 * The Cache-Control of the page for a GET of `/?{query}` (without `?`) that
 * carries no form state: REVALIDATE_PRIVATELY where every parameter is one of
 * KEPT_PARAMETERS, no-store otherwise. A page with the visitor's state (a
 * form post's answer, the account view) is always no-store, and never asks.
 */
export function pageCacheControl (query: string): string {
  if (query === '') return REVALIDATE_PRIVATELY
  for (const segment of query.split('&')) {
    if (segment !== '' && !KEPT_PARAMETERS.has(parameterName(segment))) return NO_STORE
  }
  return REVALIDATE_PRIVATELY
}
