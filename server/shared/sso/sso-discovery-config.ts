import { readBoolean, type Env } from '../env-parsing.js'

/**
 * SSO_DISCOVERY (docs/sso.md, "Found by the address"), read alike by the edge
 * (which proxies `auth/sso/discover` and tells the page) and the reference
 * service (which answers it). Off by default: the page then keeps the spec's
 * layout, with single sign-on behind its modal.
 */
export function readSsoDiscovery (env: Env): boolean {
  return readBoolean(env, 'SSO_DISCOVERY', false)
}
