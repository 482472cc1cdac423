import type { FastifyRequest } from 'fastify'
import { isIP } from 'node:net'
import { addressRange } from '../shared/address-range.js'

/**
 * The client's address as the edge counts it and states it to the backends.
 *
 * Fastify reads it from the connection, or from X-Forwarded-For behind a
 * trusted proxy (TRUST_PROXY), as written: some proxies append a port
 * (`198.51.100.9:40000`, `[2001:db8::1]:443`), which would give every
 * connection a rate-limit bucket of its own, and a dual-stack listener reports
 * IPv4 clients as `::ffff:198.51.100.9`. A request whose connection was reset
 * before its address was read has none at all.
 */

/** The rate-limit key of every request whose client address is unknown: one bucket for all of them. */
export const NO_CLIENT_ADDRESS_KEY = 'no-client-address'

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

/**
 * The bucket a normalised address is counted in: an IPv4 address itself, an
 * IPv6 address by its /64 (`2001:db8:1:2::/64`), and every request without an
 * address in one shared bucket, so that resetting connections buys nothing
 * (server/shared/address-range.ts).
 */
export function rateLimitKey (address: string | null): string {
  return address === null ? NO_CLIENT_ADDRESS_KEY : addressRange(address)
}

/** The normalised client address of a request (see {@link normaliseAddress}); null when there is none. */
export function clientAddress (request: Pick<FastifyRequest, 'ip'>): string | null {
  return normaliseAddress(request.ip as string | undefined)
}
