import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { isHostname } from '../../common/http/hosts.js'
import { readLogLevel, type LogLevel } from '../shared/logger.js'
import { OWASP_SCRYPT_COST } from './passwords/passwords.js'
import { readUpstreamTimeoutMs } from '../shared/upstream-timeout.js'
import { ConfigError, deepFreeze, readBoolean, readHttpUrl, readInteger, readList, readOrigin, readServiceUrl, readString, type Env } from '../shared/env-parsing.js'
import { readPasskeySettings, type PasskeySettings } from '../shared/passkeys/passkey-config.js'
import { readSecondFactorSettings, type SecondFactorSettings } from '../shared/second-factor/second-factor-config.js'
import { readEmailCodeSettings, type EmailCodeSettings } from '../shared/email-codes/email-code-config.js'
import { readPasswordMinLength } from '../shared/passwords/password-min-length.js'
import { parseSsoConnections, type SsoConnection } from './sso/connections.js'
import { readSsoDiscovery } from '../shared/sso/sso-discovery-config.js'
import { parseSocialConnections, type SocialConnection } from '../shared/social/social-connections.js'
import { parseOidcClients, type OidcClient } from './oidc/oidc-clients.js'
import { readBreachedPasswordSettings, type BreachedPasswordSettings } from './breached-passwords/settings.js'

const DEFAULT_DATA_DIR = './data'
const GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs'

/** Accepted range of PASSWORD_HASH_COST (log2 of scrypt's N). */
const PASSWORD_HASH_COST_RANGE = Object.freeze({ min: 10, max: 20 })

/**
 * How long a session lives and how a lost refresh answer is forgiven
 * (docs/reference-service.md#how-long-a-session-lives).
 */
export interface SessionSettings {
  /** REFRESH_REUSE_GRACE_SECONDS: a used refresh token presented again this soon gets a sibling; 0: never. */
  readonly reuseGraceSeconds: number
  /** SESSION_IDLE_TIMEOUT_DAYS: the lifetime of each refresh token, so a session unrefreshed this long ends. */
  readonly idleTimeoutDays: number
  /** SESSION_MAX_LIFETIME_DAYS: no session outlives its sign-in by more, however often it is refreshed. */
  readonly maxLifetimeDays: number
}

/**
 * The defaults: a grace as long as Okta's, an idle timeout as long as the token cookies, and
 * NIST SP 800-63B-4's reauthentication bound for AAL1 (docs/reference-service.md#how-long-a-session-lives).
 */
export const DEFAULT_SESSION_SETTINGS: SessionSettings = Object.freeze({ reuseGraceSeconds: 30, idleTimeoutDays: 14, maxLifetimeDays: 30 })

/** Accepted range of REFRESH_REUSE_GRACE_SECONDS: longer than a few minutes would hide a stolen token's reuse. */
const REFRESH_REUSE_GRACE_RANGE = Object.freeze({ min: 0, max: 300 })
/** Accepted range of SESSION_MAX_LIFETIME_DAYS and SESSION_IDLE_TIMEOUT_DAYS. */
const SESSION_DAYS_RANGE = Object.freeze({ min: 1, max: 365 })

/** Configuration of the embedded reference services (accounts, domain check, local accounts). */
export interface ReferenceConfig {
  /** The page's public origin, without a trailing slash: links in emails and SSO callbacks use it. */
  readonly publicUrl: string
  /**
   * log2 of scrypt's N for new password hashes: OWASP's 17 by default. Lower
   * values are for test suites and development machines; the service warns at
   * start when it runs below 17.
   */
  readonly passwordHashCost: number
  /**
   * UPSTREAM_TIMEOUT_MS, the edge's wait for this service's answers (the
   * embedded service has the edge's environment): the hash gate starts no
   * hash whose answer would come after it.
   */
  readonly upstreamTimeoutMs: number
  /** Absolute folder for the SQLite file, the signing keys and the outbox. */
  readonly dataDir: string
  /** PostgreSQL holding the accounts instead of the SQLite file in DATA_DIR; null: SQLite. */
  readonly databaseUrl: string | null
  readonly smtpUrl: string | null
  readonly mailFrom: string
  readonly productName: string
  readonly googleClientId: string | null
  readonly googleJwksUrl: string
  /** Raw SSO_CONNECTIONS (JSON, or a path to a JSON file); parsed by the SSO module. */
  readonly ssoConnectionsSource: string | null
  /** SSO_CONNECTIONS parsed and checked: a bad entry stops the start (in the edge, before the fork). */
  readonly ssoConnections: readonly SsoConnection[]
  /** SSO_DISCOVERY (docs/sso.md, "Found by the address"): whether `auth/sso/discover` is answered. */
  readonly ssoDiscovery: boolean
  /** SOCIAL_CONNECTIONS parsed and checked, with their secrets (docs/social-sign-in.md): a bad entry stops the start. */
  readonly socialConnections: readonly SocialConnection[]
  readonly authorizedDomains: readonly string[]
  readonly unauthorizedDomains: readonly string[]
  /** Also serve `/authenticate` for local-network mode on this port; null: not served. */
  readonly localAccountsPort: number | null
  /** Page origins allowed by CORS on the local accounts `/authenticate`. */
  readonly localAccountsAllowedOrigins: readonly string[]
  /**
   * REQUIRE_VERIFIED_EMAIL: no password sign-in before the address is
   * verified, and registration answers alike for taken and new addresses.
   */
  readonly requireVerifiedEmail: boolean
  /** GOOGLE_REQUIRE_NONCE: Google ID tokens must carry the nonce of the page that asked for them. */
  readonly googleRequireNonce: boolean
  /** PASSKEYS, PASSKEY_RP_ID, PASSKEY_RELATED_ORIGINS (docs/passkeys.md); null: the passkey calls are not served. */
  readonly passkeys: PasskeySettings | null
  /** SECOND_FACTOR and SECOND_FACTOR_REMEMBER_BROWSER (docs/second-factor.md). */
  readonly secondFactor: SecondFactorSettings
  /** EMAIL_CODES (docs/reference-service.md#emailed-codes): whether the email-code calls are served. */
  readonly emailCodes: EmailCodeSettings
  /**
   * PASSWORD_MIN_LENGTH: the fewest characters a new password may have, 8 by
   * default (NIST SP 800-63B-4 asks for 15 where a password is the only factor).
   */
  readonly passwordMinLength: number
  /** BREACHED_PASSWORDS and its settings (docs/breached-passwords.md); null: off. */
  readonly breachedPasswords: BreachedPasswordSettings | null
  /** REFRESH_REUSE_GRACE_SECONDS, SESSION_IDLE_TIMEOUT_DAYS, SESSION_MAX_LIFETIME_DAYS (docs/reference-service.md#how-long-a-session-lives). */
  readonly sessions: SessionSettings
  /**
   * OIDC_CLIENTS (JSON, or the path of a JSON file) parsed and checked: a bad
   * entry stops the start, naming it (in the edge, before the fork). The
   * clients added with the admin command are in the store.
   */
  readonly oidcClients: readonly OidcClient[]
  readonly logLevel: LogLevel
}

function isDomain (item: string): boolean {
  return isHostname(item.toLowerCase())
}

function isOrigin (item: string): boolean {
  try {
    const url = new URL(item)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === item.replace(/\/$/, '')
  } catch {
    return false
  }
}

function readSmtpUrl (env: Env): string | null {
  const raw = readString(env, 'SMTP_URL')
  if (raw === undefined) return null
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL')
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL')
  return raw
}

function readDatabaseUrl (env: Env): string | null {
  const url = readServiceUrl(env, 'DATABASE_URL', {
    protocols: ['postgres:', 'postgresql:'],
    example: 'postgres://threshold:secret@db.internal:5432/threshold'
  })
  // The raw value: pg reads libpq's query parameters (sslmode, host=/socket/dir) from it.
  return url === undefined ? null : readString(env, 'DATABASE_URL')!
}

/** The idle timeout defaults to 14 days, or to the maximum lifetime where that is shorter; it never exceeds it. */
function readSessionSettings (env: Env): SessionSettings {
  const maxLifetimeDays = readInteger(env, 'SESSION_MAX_LIFETIME_DAYS', { ...SESSION_DAYS_RANGE, fallback: DEFAULT_SESSION_SETTINGS.maxLifetimeDays })
  const idleTimeoutDays = readInteger(env, 'SESSION_IDLE_TIMEOUT_DAYS', {
    ...SESSION_DAYS_RANGE, fallback: Math.min(DEFAULT_SESSION_SETTINGS.idleTimeoutDays, maxLifetimeDays)
  })
  if (idleTimeoutDays > maxLifetimeDays) {
    throw new ConfigError('SESSION_IDLE_TIMEOUT_DAYS', `must not exceed SESSION_MAX_LIFETIME_DAYS (${maxLifetimeDays})`, String(idleTimeoutDays))
  }
  return {
    reuseGraceSeconds: readInteger(env, 'REFRESH_REUSE_GRACE_SECONDS', { ...REFRESH_REUSE_GRACE_RANGE, fallback: DEFAULT_SESSION_SETTINGS.reuseGraceSeconds }),
    idleTimeoutDays,
    maxLifetimeDays
  }
}

/**
 * Reads the reference services' variables. `edgePort` is the page's port,
 * from which PUBLIC_URL defaults to http://localhost:PORT.
 */
export function loadReferenceConfig (env: Env, edgePort: number): ReferenceConfig {
  const publicUrl = readOrigin(env, 'PUBLIC_URL')
  const dataDir = readString(env, 'DATA_DIR') ?? DEFAULT_DATA_DIR
  const productName = readString(env, 'PRODUCT_NAME') ?? 'Threshold'
  const publicOrigin = publicUrl?.origin ?? `http://localhost:${edgePort}`
  const allowedOrigins = readList(env, 'LOCAL_ACCOUNTS_ALLOWED_ORIGINS', isOrigin, 'origins such as https://signin.example.com')
  const localPort = readString(env, 'LOCAL_ACCOUNTS_PORT') === undefined
    ? null
    : readInteger(env, 'LOCAL_ACCOUNTS_PORT', { min: 1, max: 65535, fallback: 0 })
  const mailFrom = readString(env, 'MAIL_FROM') ?? `${productName} <no-reply@${new URL(publicOrigin).hostname}>`
  const googleJwks = readHttpUrl(env, 'GOOGLE_JWKS_URL')
  const googleClientId = readString(env, 'GOOGLE_CLIENT_ID') ?? null
  const ssoConnectionsSource = readString(env, 'SSO_CONNECTIONS') ?? null

  return deepFreeze<ReferenceConfig>({
    publicUrl: publicOrigin,
    passwordHashCost: readInteger(env, 'PASSWORD_HASH_COST', { ...PASSWORD_HASH_COST_RANGE, fallback: OWASP_SCRYPT_COST }),
    upstreamTimeoutMs: readUpstreamTimeoutMs(env),
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(process.cwd(), dataDir),
    databaseUrl: readDatabaseUrl(env),
    smtpUrl: readSmtpUrl(env),
    mailFrom,
    productName,
    googleClientId,
    googleJwksUrl: googleJwks?.href ?? GOOGLE_JWKS_URL,
    ssoConnectionsSource,
    ssoConnections: parseSsoConnections(ssoConnectionsSource),
    ssoDiscovery: readSsoDiscovery(env),
    socialConnections: parseSocialConnections(readString(env, 'SOCIAL_CONNECTIONS')),
    authorizedDomains: readList(env, 'AUTHORIZED_DOMAINS', isDomain, 'domain names').map((item) => item.toLowerCase()),
    unauthorizedDomains: readList(env, 'UNAUTHORIZED_DOMAINS', isDomain, 'domain names').map((item) => item.toLowerCase()),
    localAccountsPort: localPort,
    localAccountsAllowedOrigins: [publicOrigin, ...allowedOrigins.map((origin) => origin.replace(/\/$/, ''))],
    requireVerifiedEmail: readBoolean(env, 'REQUIRE_VERIFIED_EMAIL', false),
    googleRequireNonce: readBoolean(env, 'GOOGLE_REQUIRE_NONCE', false),
    passkeys: readPasskeySettings(env, publicOrigin, true),
    secondFactor: readSecondFactorSettings(env, true),
    emailCodes: readEmailCodeSettings(env, true),
    passwordMinLength: readPasswordMinLength(env),
    breachedPasswords: readBreachedPasswordSettings(env),
    sessions: readSessionSettings(env),
    oidcClients: parseOidcClients(readString(env, 'OIDC_CLIENTS'), (path) => readFileSync(isAbsolute(path) ? path : resolve(process.cwd(), path), 'utf8')),
    logLevel: readLogLevel(env)
  })
}
