import { hostMatchesPattern, isLoopbackHost, isSameOrSubdomain } from '../http/hosts.js'

export interface PageLocation {
  readonly origin: string
  readonly hash: string
}

export interface RedirectRules {
  /** The cookie domain the edge decided for this host (null: host-only cookies, no other host). */
  readonly cookieDomain: string | null
  readonly allowedHosts: readonly string[]
}

/** The longest `redirect` followed; a longer one goes to the site origin. */
export const MAX_TARGET_LENGTH = 2048
// Anything a browser might strip or reinterpret while parsing a URL.
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const SUSPICIOUS = /[\u0000-\u0020\u007f-\u00a0\\\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/

/**
 * Where to send the visitor after a successful login: the `redirect` target
 * when it is safe, else the site origin. The spec leaves this open; an open
 * redirect on a sign-in page hands phishers a trusted link, so a target must
 * be https (http only for loopback hosts), carry no credentials, and be on
 * this origin, on the cookie domain or one of its subdomains, or on a host
 * REDIRECT_ALLOWED_HOSTS lists. The page's hash is kept.
 */
export function safeRedirectTarget (raw: string | null, page: PageLocation, rules: RedirectRules): string {
  const fallback = new URL('/', page.origin)
  const target = parseTarget(raw, page, rules) ?? fallback
  if (page.hash !== '' && page.hash !== '#') target.hash = page.hash
  return target.href
}

function parseTarget (raw: string | null, page: PageLocation, rules: RedirectRules): URL | null {
  if (raw === null || raw === '' || raw.length > MAX_TARGET_LENGTH || SUSPICIOUS.test(raw)) return null
  let url: URL
  try {
    url = new URL(raw, page.origin)
  } catch {
    return null
  }
  if (url.username !== '' || url.password !== '') return null
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))
  if (!secure) return null
  if (url.origin === page.origin) return url
  if (rules.cookieDomain !== null && isSameOrSubdomain(url.hostname, rules.cookieDomain)) return url
  if (rules.allowedHosts.some((pattern) => hostMatchesPattern(url.hostname, pattern))) return url
  return null
}
