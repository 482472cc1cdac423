import type { IncomingMessage } from 'node:http'
import { BlockList } from 'node:net'
import { normaliseAddress } from './client-address.js'
import type { ServerConfig } from '../config.js'

/**
 * Whether the hop at `hop` (0: the connection's peer, then X-Forwarded-For
 * from right to left) is a proxy whose forwarding headers the edge believes.
 * This is the function form of Fastify's `trustProxy`, which proxy-addr calls
 * for each hop; the edge uses the same function for its own decisions (the
 * stated host on the hot path, the request id), so that they cannot disagree.
 */
export type ProxyTrust = (address: string | undefined, hop: number) => boolean

/** proxy-addr's named ranges, which TRUST_PROXY accepts beside addresses and CIDRs. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']
}

function blockListOf (entries: readonly string[]): BlockList {
  const list = new BlockList()
  for (const entry of entries.flatMap((item) => NAMED_RANGES[item] ?? [item])) {
    const [address = '', prefix] = entry.split('/')
    const family = address.includes(':') ? 'ipv6' : 'ipv4'
    if (prefix === undefined) list.addAddress(address, family)
    else list.addSubnet(address, Number(prefix), family)
  }
  return list
}

/**
 * TRUST_PROXY as a {@link ProxyTrust}; null when no proxy is trusted.
 *
 * A hop count trusts that many hops whatever their addresses (Fastify's own
 * number form trusts no peer at all for the host and scheme, and its types
 * omit it). An address list is checked against each hop with its port
 * stripped: proxy-addr would take a trusted proxy that appends ports
 * (`10.0.0.2:5555`) for the client.
 */
export function proxyTrust (trustProxy: ServerConfig['trustProxy']): ProxyTrust | null {
  if (trustProxy === false) return null
  if (typeof trustProxy === 'number') return (_address, hop) => hop < trustProxy
  const trusted = blockListOf(trustProxy)
  return (address) => {
    const normalised = normaliseAddress(address)
    if (normalised === null) return false
    return trusted.check(normalised, normalised.includes(':') ? 'ipv6' : 'ipv4')
  }
}

/** Whether the connection itself comes from a trusted proxy. */
export function fromTrustedProxy (trust: ProxyTrust | null, request: IncomingMessage): boolean {
  return trust !== null && trust(request.socket?.remoteAddress, 0)
}
