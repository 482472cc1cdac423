import { ConfigError, readHttpUrl, readInteger, readString, type Env } from '../../shared/env-parsing.js'

/** Have I Been Pwned's public range API (docs/breached-passwords.md). */
const DEFAULT_BREACHED_PASSWORDS_URL = 'https://api.pwnedpasswords.com/range'

/**
 * How long one range call may take. The public API answers from Cloudflare's
 * cache in tens of milliseconds almost everywhere; 1.5 s leaves room for a
 * slow path or a cold mirror, and stays short enough that a visitor who
 * registers while the corpus is down waits no longer than a scrypt hash at a
 * high cost. A login never waits for it beyond this bound either.
 */
const DEFAULT_BREACHED_PASSWORDS_TIMEOUT_MS = 1500
const BREACHED_PASSWORDS_TIMEOUT_RANGE = Object.freeze({ min: 100, max: 10_000 })

/**
 * What a new password meets when the corpus cannot be asked: `open` lets it
 * through (logged and counted), `closed` refuses it with "try again". A
 * login is never refused for it either way.
 */
type BreachCheckFailure = 'open' | 'closed'

/** BREACHED_PASSWORDS_URL, _TIMEOUT_MS and _FAILURE, read when BREACHED_PASSWORDS is on. */
export interface BreachedPasswordSettings {
  /** The range API's base, without a trailing slash: `<rangeUrl>/<five hex digits>`. */
  readonly rangeUrl: string
  readonly timeoutMs: number
  readonly failure: BreachCheckFailure
}

function readOnOff (env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name)
  if (raw === undefined) return fallback
  const value = raw.toLowerCase()
  if (value !== 'on' && value !== 'off') throw new ConfigError(name, 'must be on or off', raw)
  return value === 'on'
}

/**
 * The breached-password check's settings; null with BREACHED_PASSWORDS=off
 * (an air-gapped install without a mirror: the offline list still applies).
 */
export function readBreachedPasswordSettings (env: Env): BreachedPasswordSettings | null {
  if (!readOnOff(env, 'BREACHED_PASSWORDS', true)) return null
  const url = readHttpUrl(env, 'BREACHED_PASSWORDS_URL')
  const failure = readString(env, 'BREACHED_PASSWORDS_FAILURE') ?? 'open'
  if (failure !== 'open' && failure !== 'closed') throw new ConfigError('BREACHED_PASSWORDS_FAILURE', 'must be open or closed', failure)
  return {
    rangeUrl: (url?.href ?? DEFAULT_BREACHED_PASSWORDS_URL).replace(/\/+$/, ''),
    timeoutMs: readInteger(env, 'BREACHED_PASSWORDS_TIMEOUT_MS', { ...BREACHED_PASSWORDS_TIMEOUT_RANGE, fallback: DEFAULT_BREACHED_PASSWORDS_TIMEOUT_MS }),
    failure
  }
}
