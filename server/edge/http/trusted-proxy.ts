import type { IncomingMessage } from 'node:http'
import { BlockList, isIP } from 'node:net'
import { readInteger, readList, readString, type Env } from '../../shared/env-parsing.js'
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

function isTrustedProxyEntry (item: string): boolean {
  if (Object.hasOwn(NAMED_RANGES, item)) return true
  const [address, prefix, extra] = item.split('/')
  if (address === undefined || extra !== undefined) return false
  const family = isIP(address)
  if (family === 0) return false
  if (prefix === undefined) return true
  if (!/^\d{1,3}$/.test(prefix)) return false
  return Number(prefix) <= (family === 4 ? 32 : 128)
}

/** TRUST_PROXY, as Fastify's `trustProxy` takes it: false (trust none), a hop count, or addresses, CIDRs and named ranges. */
export function readTrustProxy (env: Env): ServerConfig['trustProxy'] {
  const raw = readString(env, 'TRUST_PROXY')
  if (raw === undefined) return false
  if (/^\d+$/.test(raw)) return readInteger(env, 'TRUST_PROXY', { min: 0, max: 100, fallback: 0 })
  return readList(env, 'TRUST_PROXY', isTrustedProxyEntry, 'a hop count, or IP addresses and CIDR ranges')
}
