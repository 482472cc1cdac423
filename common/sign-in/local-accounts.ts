import { hostMatchesPattern, isHostname, isIPv6, isIpAddress, isLoopbackHost } from '../http/hosts.js'
import type { MessageKey } from '../languages/message-catalogue.js'

/** Port of the local accounts service when `local_accounts_port` is absent (docs/accounts-api.md, "Local-network mode"). */
export const DEFAULT_LOCAL_ACCOUNTS_PORT = 10064

/** Where local-network mode sends the login payload, or why it may not (the reason's text, by its key in the message catalogues). */
export type LocalAccountsTarget =
  | { readonly kind: 'off' }
  | { readonly kind: 'allowed', readonly origin: string, readonly authenticateUrl: string }
  | { readonly kind: 'refused', readonly reason: MessageKey }

/**
 * Reads `local_accounts_host` and `local_accounts_port` from the page's query.
 *
 * A link must not be able to send a visitor's password to a stranger's server,
 * so the host must be the page's own host name, a loopback address, or one the
 * operator listed. The scheme is https, except for loopback hosts, which are
 * reached over plain http (browsers treat them as secure contexts).
 */
export function resolveLocalAccounts (
  params: URLSearchParams,
  pageHostname: string,
  allowedHosts: readonly string[]
): LocalAccountsTarget {
  const rawHost = params.get('local_accounts_host')
  if (rawHost === null || rawHost.trim() === '') return { kind: 'off' }

  const host = rawHost.trim().toLowerCase()
  const bareHost = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (!isHostname(bareHost) && !isIpAddress(bareHost)) {
    return { kind: 'refused', reason: 'localAccounts.hostInvalid' }
  }

  const rawPort = (params.get('local_accounts_port') ?? '').trim()
  // Digits only: Number() would also read 0x50, 1e3, 80.0 and +80 as ports.
  const port = rawPort === '' ? DEFAULT_LOCAL_ACCOUNTS_PORT : /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : NaN
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return { kind: 'refused', reason: 'localAccounts.portInvalid' }
  }

  const allowed =
    bareHost === pageHostname.toLowerCase().replace(/^\[|\]$/g, '') ||
    isLoopbackHost(bareHost) ||
    allowedHosts.some((pattern) => hostMatchesPattern(bareHost, pattern))
  if (!allowed) {
    return { kind: 'refused', reason: 'localAccounts.hostNotAllowed' }
  }

  const scheme = isLoopbackHost(bareHost) ? 'http' : 'https'
  const hostForUrl = isIPv6(bareHost) ? `[${bareHost}]` : bareHost
  const origin = new URL(`${scheme}://${hostForUrl}:${port}`).origin
  return { kind: 'allowed', origin, authenticateUrl: `${origin}/authenticate` }
}
