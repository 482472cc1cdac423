/**
 * Host-name rules shared by the page and the edge server.
 *
 * The browser applies them without a round trip, and the server imports the
 * same functions so that both sides agree (for example on which
 * local-accounts origin the page's CSP may allow).
 */

const HOSTNAME_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/** An IPv4 address in dotted-quad form. */
function isIPv4 (host: string): boolean {
  const parts = host.split('.')
  return parts.length === 4 && parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255)
}

/** An IPv6 address, with or without the brackets a URL puts around it. */
export function isIPv6 (host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (!bare.includes(':') || !/^[0-9a-f:.]+$/i.test(bare)) return false
  try {
    // The URL parser is the strictest IPv6 validator both runtimes share.
    return new URL(`http://[${bare}]/`).hostname.length > 2
  } catch {
    return false
  }
}

export function isIpAddress (host: string): boolean {
  return isIPv4(host) || isIPv6(host)
}

/** A DNS host name made of valid labels (lower case, as URL parsing leaves it). */
export function isHostname (host: string): boolean {
  if (host.length === 0 || host.length > 253) return false
  return host.split('.').every((label) => HOSTNAME_LABEL.test(label))
}

/** localhost, *.localhost (RFC 6761), 127.0.0.0/8 and ::1. */
export function isLoopbackHost (host: string): boolean {
  const lower = host.toLowerCase()
  if (lower === 'localhost' || lower.endsWith('.localhost')) return true
  if (isIPv4(lower)) return lower.startsWith('127.')
  const bare = lower.startsWith('[') ? lower.slice(1, -1) : lower
  return isIPv6(bare) && new URL(`http://[${bare}]/`).hostname === '[::1]'
}

/**
 * Whether `host` matches `pattern`: an exact host name, or `*.example.com`,
 * which matches every subdomain of example.com but not example.com itself.
 */
export function hostMatchesPattern (host: string, pattern: string): boolean {
  const lowerHost = host.toLowerCase()
  const lowerPattern = pattern.toLowerCase()
  if (lowerPattern.startsWith('*.')) {
    const suffix = lowerPattern.slice(1)
    return lowerHost.length > suffix.length && lowerHost.endsWith(suffix)
  }
  return lowerHost === lowerPattern
}

/** Whether `host` is `domain` or one of its subdomains. */
export function isSameOrSubdomain (host: string, domain: string): boolean {
  const lowerHost = host.toLowerCase()
  const lowerDomain = domain.toLowerCase().replace(/^\./, '')
  return lowerHost === lowerDomain || lowerHost.endsWith(`.${lowerDomain}`)
}

/**
 * Whether a page at `protocol` and `hostname` (as `location` or a URL gives
 * them) is a loopback page over plain http, where WebKit keeps no `Secure`
 * cookie and the token cookies go without it (docs/security.md, "Plain http
 * on loopback").
 */
export function isLoopbackHttpOrigin (protocol: string, hostname: string): boolean {
  return protocol === 'http:' && isLoopbackHost(hostname)
}
