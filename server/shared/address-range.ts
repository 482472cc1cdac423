/**
 * The range a client address is counted by, for the edge's rate limits and
 * the accounts service's login throttles alike: an IPv4 address is itself,
 * an IPv6 address its /64, because one subscriber usually holds a whole /64
 * and would otherwise have 2^64 addresses to spread attempts over.
 */

/** The prefix length by which an IPv6 client is counted. */
export const IPV6_CLIENT_PREFIX_LENGTH = 64

/** The eight groups of an IPv6 address in its canonical form. */
function ipv6Groups (address: string): string[] {
  const [head = '', tail] = address.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  if (tail === undefined) return headGroups
  const tailGroups = tail === '' ? [] : tail.split(':')
  return [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
}

/**
 * The range of a normalised address (no port, IPv6 in its shortest lower-case
 * form): an IPv4 address itself, an IPv6 address as `2001:db8:1:2::/64`.
 */
export function addressRange (address: string): string {
  if (!address.includes(':')) return address
  const prefixGroups = IPV6_CLIENT_PREFIX_LENGTH / 16
  return `${ipv6Groups(address).slice(0, prefixGroups).join(':')}::/${IPV6_CLIENT_PREFIX_LENGTH}`
}
