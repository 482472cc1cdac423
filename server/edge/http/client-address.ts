import type { FastifyRequest } from 'fastify'
import { addressRange, normaliseAddress } from '../../shared/address-range.js'

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

/** Normalised as the accounts service normalises it: one function for both (server/shared/address-range.ts). */
export { normaliseAddress }

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
  return normaliseAddress(request.ip)
}
