import { isHostname, isIpAddress, isLoopbackHost, isSameOrSubdomain } from '../../../common/http/hosts.js'
import { ConfigError, readBoolean, readList, readString, type Env } from '../env-parsing.js'

/**
 * Passkeys as configured (docs/passkeys.md): the relying party ID every
 * passkey is bound to, and the origins a ceremony may come from. The edge
 * and the reference service read the same variables with this module.
 */
export interface PasskeySettings {
  /** PASSKEY_RP_ID: the page's host or a parent domain of it, lower case. */
  readonly rpId: string
  /** The page's own origin first, then PASSKEY_RELATED_ORIGINS. */
  readonly origins: readonly string[]
}

function isHttpsOrigin (item: string): boolean {
  try {
    const url = new URL(item)
    return url.protocol === 'https:' && url.origin === item.replace(/\/$/, '')
  } catch {
    return false
  }
}

/**
 * Whether browsers run WebAuthn on the page at all: a secure context (https,
 * or http on localhost) with a domain name, never an IP address.
 */
function passkeysPossibleOn (page: URL): boolean {
  if (isIpAddress(page.hostname.replace(/^\[|\]$/g, ''))) return false
  return page.protocol === 'https:' || isLoopbackHost(page.hostname)
}

/**
 * Reads PASSKEYS, PASSKEY_RP_ID and PASSKEY_RELATED_ORIGINS for the page at
 * `publicOrigin`; null when passkeys are off. `answeredByDefault`: whether
 * the accounts service answers the passkey calls unless told otherwise (the
 * embedded reference service does; an own backend must say so). On a page
 * where browsers offer no passkeys (an IP address, plain http off
 * localhost), the default is off, and PASSKEYS=true is refused.
 */
export function readPasskeySettings (env: Env, publicOrigin: string, answeredByDefault: boolean): PasskeySettings | null {
  const page = new URL(publicOrigin)
  const possible = passkeysPossibleOn(page)
  const enabled = readBoolean(env, 'PASSKEYS', answeredByDefault && possible)
  if (!enabled) return null
  if (!possible) {
    throw new ConfigError('PASSKEYS', 'needs a PUBLIC_URL with a domain name over https (or http://localhost): browsers offer no passkeys elsewhere', 'true')
  }
  const pageHost = page.hostname.toLowerCase()
  const configured = readString(env, 'PASSKEY_RP_ID')
  const rpId = (configured ?? pageHost).toLowerCase()
  if (configured !== undefined) {
    if (!isHostname(rpId) || rpId.endsWith('.')) throw new ConfigError('PASSKEY_RP_ID', 'must be a domain name, without scheme, port or trailing dot', configured)
    if (!isSameOrSubdomain(pageHost, rpId)) {
      throw new ConfigError('PASSKEY_RP_ID', `must be the page's host (${pageHost}) or a parent domain of it`, configured)
    }
  }
  const related = readList(env, 'PASSKEY_RELATED_ORIGINS', isHttpsOrigin, 'https origins such as https://login.example.org')
    .map((origin) => new URL(origin).origin)
  return { rpId, origins: [...new Set([page.origin, ...related])] }
}
