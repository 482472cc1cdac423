import { isIP } from 'node:net'

/**
 * Client addresses as the edge's rate limits and the accounts service's
 * login throttles count them: normalised (a proxy may append a port, and a
 * dual-stack listener reports IPv4 clients as `::ffff:198.51.100.9`), then
 * reduced to their range: an IPv4 address is itself, an IPv6 address its
 * /64, because one subscriber usually holds a whole /64 and would otherwise
 * have 2^64 addresses to spread attempts over.
 */

/** The prefix length by which an IPv6 client is counted. */
const IPV6_CLIENT_PREFIX_LENGTH = 64

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/
const BRACKETED_IPV6 = /^\[([0-9A-Fa-f:.]+)\](?::\d{1,5})?$/
const MAPPED_IPV4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/

/** IPv6 in the URL standard's shortest lower-case form, with an IPv4-mapped address as the IPv4 one. */
function canonicalIPv6 (address: string): string {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const mapped = MAPPED_IPV4.exec(canonical)
  if (mapped === null) return canonical
  const high = parseInt(mapped[1]!, 16)
  const low = parseInt(mapped[2]!, 16)
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}

/**
 * An address without its port, an IPv4-mapped IPv6 address as IPv4, IPv6 in
 * its shortest lower-case form; null when `raw` is missing or not an address.
 */
export function normaliseAddress (raw: string | undefined): string | null {
  if (raw === undefined) return null
  let candidate = raw.trim()
  const bracketed = BRACKETED_IPV6.exec(candidate)
  if (bracketed !== null) candidate = bracketed[1]!
  else candidate = IPV4_WITH_PORT.exec(candidate)?.[1] ?? candidate
  // A zone (fe80::1%eth0) names an interface of the proxy, not the client.
  const zone = candidate.indexOf('%')
  if (zone !== -1) candidate = candidate.slice(0, zone)
  const family = isIP(candidate)
  if (family === 4) return candidate
  if (family === 6) return canonicalIPv6(candidate)
  return null
}

/** The eight groups of an IPv6 address in its canonical form. */
function ipv6Groups (address: string): string[] {
  const [head = '', tail] = address.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  if (tail === undefined) return headGroups
  const tailGroups = tail === '' ? [] : tail.split(':')
  return [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
}

/**
 * The first `prefixLength / 16` groups of an IPv6 address as a range, each
 * group without leading zeros: `2001:db8:1::/48` for 48.
 */
function ipv6Prefix (address: string, prefixLength: number): string {
  const groups = ipv6Groups(address).slice(0, prefixLength / 16).map((group) => parseInt(group, 16).toString(16))
  return `${groups.join(':')}::/${prefixLength}`
}

/**
 * The range of a normalised address (no port, IPv6 in its shortest lower-case
 * form): an IPv4 address itself, an IPv6 address as `2001:db8:1:2::/64`.
 */
export function addressRange (address: string): string {
  if (!address.includes(':')) return address
  return ipv6Prefix(address, IPV6_CLIENT_PREFIX_LENGTH)
}

/**
 * The /48 of an IPv6 address, as `2001:db8:1::/48`: the block a site is
 * commonly given (RFC 6177), wider than one client's /64. The edge's
 * challenge judges risk by it (server/edge/challenge/risk.ts).
 */
export function ipv6SiteRange (address: string): string {
  return ipv6Prefix(address, 48)
}

/**
 * The range an account's owner is shown of an address (the account view's
 * sessions and activity): an IPv4 address's /24, as `203.0.113.0/24`, an
 * IPv6 address's /48, as `2001:db8:1::/48`; empty when `raw` is no address.
 * Enough to tell home from elsewhere, never the address itself.
 */
export function ownerShownRange (raw: string | undefined): string {
  const address = normaliseAddress(raw)
  if (address === null) return ''
  if (address.includes(':')) return ipv6SiteRange(address)
  return `${address.split('.').slice(0, 3).join('.')}.0/24`
}
