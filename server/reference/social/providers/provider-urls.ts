import { isLoopbackHost } from '../../../../common/http/hosts.js'

/** Time limit on each call to a provider (discovery, token, key set, API), as the SSO client's. */
export const PROVIDER_TIMEOUT_SECONDS = 10

/**
 * Whether a connection was configured on plain http: SOCIAL_CONNECTIONS takes http only for a loopback
 * host (a stand-in on the developer's machine), so only then may the provider's other URLs be plain http.
 */
export function isInsecureLoopback (configured: string): boolean {
  const url = new URL(configured)
  return url.protocol === 'http:' && isLoopbackHost(url.hostname)
}

/**
 * A URL the service is about to follow (an endpoint it was configured with, or one a discovery document
 * named): https, or http on a loopback host for a connection configured on loopback. Throws, naming what
 * the URL is for, never the URL itself (it may carry a tenant or a path the operator keeps to themselves).
 */
export function checkedProviderUrl (value: unknown, what: string, insecureLoopback: boolean): URL {
  let url: URL
  try {
    url = new URL(String(value))
  } catch {
    throw new Error(`the provider's ${what} is not an absolute URL`)
  }
  if (url.username !== '' || url.password !== '') throw new Error(`the provider's ${what} carries credentials`)
  if (url.protocol === 'https:') return url
  if (insecureLoopback && url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url
  throw new Error(`the provider's ${what} is neither https nor loopback`)
}

/** `base` and `path` joined with one slash, whatever the operator's spelling of `base` ends with. */
export function endpointOf (base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`
}
