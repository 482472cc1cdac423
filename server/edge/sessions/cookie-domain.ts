import { getDomain, parse } from 'tldts'
import { isHostname, isIpAddress, isLoopbackHost } from '../../../common/http/hosts.js'
import { ConfigError, readString, type Env } from '../../shared/env-parsing.js'

/**
 * The Public Suffix List as tldts carries it, with its private section
 * (herokuapp.com, github.io…): names under which unrelated registrants hold
 * sites, as browsers treat them. The host is always a bare host name here.
 */
const PUBLIC_SUFFIX_LIST = { allowPrivateDomains: true, extractHostname: false } as const

/**
 * Whether `name` is a suffix the Public Suffix List names (co.uk, com,
 * herokuapp.com): its subdomains belong to different registrants. A single
 * label the list does not know (`intranet`, `localhost`) is not one: the
 * list's default rule would count it, but it names one host or network.
 */
export function isPublicSuffix (name: string): boolean {
  const lower = name.toLowerCase().replace(/\.$/, '')
  const parsed = parse(lower, PUBLIC_SUFFIX_LIST)
  return parsed.publicSuffix === lower && (parsed.isIcann === true || parsed.isPrivate === true)
}

/**
 * The domain the token cookies are scoped to, which is also the domain whose
 * hosts the page may redirect to (docs/page.md, "Cookie domain"):
 *
 * - `COOKIE_DOMAIN` when set;
 * - the parent of the page's host when the parent is no public suffix
 *   (signin.example.co.uk → example.co.uk, a.b.example.com → b.example.com);
 * - the host itself when it is a registrable domain, its parent a public
 *   suffix (example.com, example.co.uk, demo.herokuapp.com): its subdomains
 *   belong to the same registrant, no other site does;
 * - null, host-only cookies, for a host that is itself a public suffix, an IP
 *   address, localhost, a single label or a name with a trailing dot.
 */
export function cookieDomainFor (pageHost: string, configured: string | null): string | null {
  if (configured !== null) return configured
  const host = pageHost.toLowerCase()
  if (host.endsWith('.') || !host.includes('.') || isIpAddress(host) || isLoopbackHost(host) || !isHostname(host)) return null
  const registrable = getDomain(host, PUBLIC_SUFFIX_LIST)
  if (registrable === null) return null
  return registrable === host ? host : host.slice(host.indexOf('.') + 1)
}

/** COOKIE_DOMAIN, without a leading dot, lower case; null: derived per host ({@link cookieDomainFor}). */
export function readCookieDomain (env: Env): string | null {
  const raw = readString(env, 'COOKIE_DOMAIN')
  if (raw === undefined) return null
  const domain = raw.replace(/^\./, '').toLowerCase()
  if (!isHostname(domain)) throw new ConfigError('COOKIE_DOMAIN', 'must be a domain name', raw)
  // Browsers refuse such a cookie; were one to take it, every site under the suffix would read the tokens.
  if (isPublicSuffix(domain)) throw new ConfigError('COOKIE_DOMAIN', 'must not be a public suffix such as co.uk or herokuapp.com', raw)
  return domain
}
