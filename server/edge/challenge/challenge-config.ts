import { ConfigError, readHttpUrl, readInteger, readString, type Env } from '../../shared/env-parsing.js'

/** CHALLENGE: what the edge asks for when risk has risen (docs/challenge.md). */
type ChallengeKind = 'pow' | 'turnstile' | 'hcaptcha' | 'off'

/** Failed logins (and registration and reset requests) per address range in {@link RANGE_WINDOW_MINUTES} before a range is challenged. */
const DEFAULT_RANGE_FAILURES = 10
/** Failed logins per account in {@link ACCOUNT_WINDOW_MINUTES} before that account's logins are challenged. */
const DEFAULT_ACCOUNT_FAILURES = 5
/** Failed logins across all accounts per minute before every guarded call is challenged (at the lowest level). */
const DEFAULT_BURST_FAILURES = 100

/** The providers' own verification endpoints, used unless CHALLENGE_VERIFY_URL names another (a test's fake). */
const PROVIDER_VERIFY_URLS = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify'
} as const

/** The origins a provider's widget loads from and talks to, added to the page's CSP only when it is chosen. */
export const PROVIDER_ORIGINS = {
  turnstile: 'https://challenges.cloudflare.com',
  hcaptcha: 'https://hcaptcha.com https://*.hcaptcha.com'
} as const

/** A provider's settings (CHALLENGE=turnstile or hcaptcha). */
export interface ProviderSettings {
  readonly kind: 'turnstile' | 'hcaptcha'
  readonly siteKey: string
  readonly secret: string
  readonly verifyUrl: string
}

/** The challenge settings, read once at start. */
export interface ChallengeSettings {
  readonly kind: ChallengeKind
  /** Thresholds; 0 means "always challenge" on that signal. */
  readonly rangeFailures: number
  readonly accountFailures: number
  readonly burstFailures: number
  /**
   * EDGE_SECRET: the root of the edge's HMAC keys (challenge signatures, the
   * keyed hashes of client addresses and accounts in Redis, the known-browser
   * cookie); null: one drawn at start, which only this instance knows.
   */
  readonly edgeSecret: string | null
  /** Set for turnstile and hcaptcha only. */
  readonly provider: ProviderSettings | null
}

const KINDS: readonly ChallengeKind[] = ['pow', 'turnstile', 'hcaptcha', 'off']
const THRESHOLD_RANGE = { min: 0, max: 1_000_000 }

/** A host on this machine, where plain http reaches no network (a test's fake siteverify). */
function isLoopbackHost (hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname)
}

/**
 * CHALLENGE (pow, turnstile, hcaptcha, off; default pow), the three
 * thresholds, EDGE_SECRET and, for a provider, CHALLENGE_SITE_KEY,
 * CHALLENGE_SECRET and CHALLENGE_VERIFY_URL. Refuses a provider without its
 * keys, provider keys without a provider (most likely a misspelt CHALLENGE),
 * a CHALLENGE_VERIFY_URL over plain http off this machine (the secret would
 * travel in the clear), an EDGE_SECRET shorter than 32 characters, and
 * REDIS_URL without EDGE_SECRET: instances sharing counts must name client
 * addresses (the rate limits), accounts and ranges (the challenge) alike by
 * keyed hashes, and accept each other's challenges.
 */
export function readChallengeSettings (env: Env): ChallengeSettings {
  const raw = (readString(env, 'CHALLENGE') ?? 'pow').toLowerCase()
  if (!(KINDS as readonly string[]).includes(raw)) throw new ConfigError('CHALLENGE', 'must be pow, turnstile, hcaptcha or off', raw)
  const kind = raw as ChallengeKind
  const edgeSecret = readString(env, 'EDGE_SECRET') ?? null
  if (edgeSecret !== null && edgeSecret.length < 32) throw new ConfigError('EDGE_SECRET', 'must be at least 32 characters (for example: openssl rand -base64 32)')
  if (edgeSecret === null && readString(env, 'REDIS_URL') !== undefined) {
    const challenge = kind === 'off' ? '' : ', and instances accept each other\'s challenges only with it'
    throw new ConfigError('EDGE_SECRET', `is required with REDIS_URL: set the same value on every instance (at least 32 characters, for example: openssl rand -base64 32); the shared counts name clients${kind === 'off' ? '' : ' and accounts'} only by keyed hashes under it${challenge}`)
  }
  const siteKey = readString(env, 'CHALLENGE_SITE_KEY')
  const secret = readString(env, 'CHALLENGE_SECRET')
  const verifyUrl = readHttpUrl(env, 'CHALLENGE_VERIFY_URL')
  if (verifyUrl !== undefined && verifyUrl.protocol !== 'https:' && !isLoopbackHost(verifyUrl.hostname)) {
    throw new ConfigError('CHALLENGE_VERIFY_URL', 'must use https (plain http only on this machine: localhost, 127.0.0.1, [::1]); the provider secret is sent to it', verifyUrl.href)
  }
  let provider: ProviderSettings | null = null
  if (kind === 'turnstile' || kind === 'hcaptcha') {
    if (siteKey === undefined) throw new ConfigError('CHALLENGE_SITE_KEY', `is required with CHALLENGE=${kind}`)
    if (secret === undefined) throw new ConfigError('CHALLENGE_SECRET', `is required with CHALLENGE=${kind}`)
    if (!/^[\w.-]{1,200}$/.test(siteKey)) throw new ConfigError('CHALLENGE_SITE_KEY', 'is not a site key', siteKey)
    provider = { kind, siteKey, secret, verifyUrl: verifyUrl?.href ?? PROVIDER_VERIFY_URLS[kind] }
  } else {
    const stray = siteKey !== undefined ? 'CHALLENGE_SITE_KEY' : secret !== undefined ? 'CHALLENGE_SECRET' : verifyUrl !== undefined ? 'CHALLENGE_VERIFY_URL' : null
    if (stray !== null) throw new ConfigError(stray, `is set but CHALLENGE is ${kind}; it is read only with CHALLENGE=turnstile or hcaptcha`)
  }
  return {
    kind,
    rangeFailures: readInteger(env, 'CHALLENGE_RANGE_FAILURES', { ...THRESHOLD_RANGE, fallback: DEFAULT_RANGE_FAILURES }),
    accountFailures: readInteger(env, 'CHALLENGE_ACCOUNT_FAILURES', { ...THRESHOLD_RANGE, fallback: DEFAULT_ACCOUNT_FAILURES }),
    burstFailures: readInteger(env, 'CHALLENGE_BURST_FAILURES', { ...THRESHOLD_RANGE, fallback: DEFAULT_BURST_FAILURES }),
    edgeSecret,
    provider
  }
}
