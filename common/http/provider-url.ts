import { isLoopbackHost } from './hosts.js'

/**
 * Whether the browser may be sent to `href` to meet an identity provider
 * (a social connection's or single sign-on's): an absolute https URL, or
 * http on a loopback host (a stand-in under test), never with credentials
 * in it. Anything else, a relative or unparsable address included, is
 * false rather than an error: it is an answer the caller cannot use. The
 * page and the edge (its pages without scripts) share it, so both follow
 * exactly the same addresses.
 */
export function isProviderUrl (href: string): boolean {
  let url: URL
  try {
    url = new URL(href)
  } catch {
    return false
  }
  return url.username === '' && url.password === '' &&
    (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))
}
