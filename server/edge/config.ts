import { isHostname, isIpAddress } from '../../common/http/hosts.js'
import type { Locale } from '../../common/languages/message-catalogue.js'
import {
  ConfigError,
  deepFreeze,
  readHttpUrl,
  readBoolean,
  readInteger,
  readList,
  readOrigin,
  readServiceUrl,
  readString,
  type Env
} from '../shared/env-parsing.js'
import { ACCOUNTS_ANSWER_LIMIT_RANGE, DEFAULT_ACCOUNTS_ANSWER_LIMIT_BYTES } from '../shared/accounts-answer-limit.js'
import { readLogLevel, type LogLevel } from '../shared/logger.js'
import type { PasskeySettings } from '../shared/passkeys/passkey-config.js'
import { readSecondFactorSettings, type SecondFactorSettings } from '../shared/second-factor/second-factor-config.js'
import { readSsoDiscovery } from '../shared/sso/sso-discovery-config.js'
import { readUpstreamTimeoutMs } from '../shared/upstream-timeout.js'
import { readEmailCodeSettings, type EmailCodeSettings } from '../shared/email-codes/email-code-config.js'
import { readPasswordMinLength } from '../shared/passwords/password-min-length.js'
import { readBrandSettings, type BrandSettings } from './brand/brand-config.js'
import { readChallengeSettings, type ChallengeSettings } from './challenge/challenge-config.js'
import { readAllowedHosts } from './http/host-header.js'
import { readTrustProxy } from './http/trusted-proxy.js'
import { readDefaultLocale, readMessagesDir, type MessageOverrides } from './languages/messages-dir.js'
import { readMetricsPort } from './metrics/metrics-listener.js'
import { readSourceMaps } from './page/static-files.js'
import { readPasskeys } from './passkeys/passkey-settings.js'
import { parseSocialConnections, type SocialConnection } from '../shared/social/social-connections.js'
import { isPublicSuffix, readCookieDomain } from './sessions/cookie-domain.js'
import { readHealthUrl } from './upstream/upstream-probes.js'

export { ConfigError } from '../shared/env-parsing.js'

const DEFAULT_PORT = 8080
const DEFAULT_HOST = '0.0.0.0'
const DEFAULT_PRODUCT_NAME = 'Threshold'
const DEFAULT_SUPPORT_EMAIL = 'support@example.com'
const DEFAULT_RATE_LIMIT_PER_MINUTE = 30
/**
 * How long the edge keeps serving after SIGTERM with /readyz failing, so that
 * a balancer that learns of the stop from /readyz stops sending first: 10 s
 * covers two failed checks at a 5 s interval (Kubernetes' readinessProbe
 * with periodSeconds 5, GCP's 5 s default, HAProxy's 2 s × 3), and the few
 * seconds Kubernetes takes to drop a terminating pod from its endpoints.
 * docs/scale-out.md#rolling-restarts says what to set for slower balancers.
 */
export const DEFAULT_DRAIN_SECONDS = 10
/** The longest drain accepted: past it, a stop would outlast any supervisor's stop timeout worth having. */
const MAX_DRAIN_SECONDS = 300
export { DEFAULT_ACCOUNTS_ANSWER_LIMIT_BYTES } from '../shared/accounts-answer-limit.js'

/** The edge server's configuration, validated once at start and then frozen. */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  /**
   * METRICS_PORT: Prometheus metrics at /metrics on this port only, on HOST
   * (server/edge/metrics/metrics-listener.ts); null: no metrics are kept at all.
   */
  readonly metricsPort: number | null
  /** Base URL of the accounts service, without a trailing slash; null: embedded reference service. */
  readonly accountsUrl: string | null
  /** Base URL of the edge auth metadata service; null: embedded reference responder. */
  readonly edgeAuthUrl: string | null
  /**
   * What readiness requests of the accounts service (ACCOUNTS_HEALTH_URL,
   * else ACCOUNTS_URL); null with the embedded service, which is asked on its
   * own health route.
   */
  readonly accountsHealthUrl: string | null
  /** EDGE_AUTH_HEALTH_URL, else EDGE_AUTH_URL; null with the embedded responder. */
  readonly edgeAuthHealthUrl: string | null
  /**
   * READINESS_INCLUDES_UPSTREAMS: whether /readyz fails while a configured
   * backend is down. Off by default: docs/operations.md, "Readiness".
   */
  readonly readinessIncludesUpstreams: boolean
  readonly googleClientId: string | null
  readonly googleDisabledHostnames: readonly string[]
  readonly productName: string
  readonly supportEmail: string
  readonly redirectAllowedHosts: readonly string[]
  readonly localAccountsAllowedHosts: readonly string[]
  readonly cookieDomain: string | null
  /**
   * AUTH_COOKIE_HTTPONLY: the edge sets the `auth` cookie too, HttpOnly, and
   * the page does not write it (for products that read it on their servers
   * only). The `refresh` cookie is HttpOnly whatever it says
   * (docs/security.md, "The token cookies").
   */
  readonly authCookieHttpOnly: boolean
  /** PUBLIC_URL's origin, the page's own address where the edge needs it (a form post's fallback redirect); null: the request's scheme and Host. */
  readonly publicOrigin: string | null
  /**
   * The host names the edge answers for, in canonical form (ALLOWED_HOSTS,
   * else PUBLIC_URL's host); null: any host, with a warning at start.
   */
  readonly allowedHosts: readonly string[] | null
  /** Fastify's `trustProxy`: false (trust none), a hop count, or addresses and CIDRs. */
  readonly trustProxy: false | number | readonly string[]
  readonly rateLimitPerMinute: number
  /** Redis holding the rate-limit counts shared by every instance; null: each instance counts alone. */
  readonly redisUrl: string | null
  readonly upstreamTimeoutMs: number
  /**
   * DRAIN_SECONDS: after SIGTERM, how long the edge answers with /readyz at
   * 503 and every answer closing its connection, before it stops accepting
   * connections (run-edge.ts); 0 stops at once.
   */
  readonly drainSeconds: number
  /**
   * The largest answer the edge reads from the accounts service on a JSON
   * call, as sent and once decoded; a larger one is refused as unreadable.
   */
  readonly accountsAnswerLimitBytes: number
  /**
   * DOMAIN_CHECK_ENFORCED: the edge runs the domain check itself before it
   * proxies a login call (server/edge/domain-check/domain-check-enforcement.ts), not only the page.
   */
  readonly domainCheckEnforced: boolean
  /** Time limit the page puts on the domain authorization check; null: none (the spec's default). */
  readonly domainCheckTimeoutMs: number | null
  readonly logLevel: LogLevel
  /**
   * Whether the client's source maps are served under /assets/ (SOURCE_MAPS=public).
   * By default they are not: they hold the client's whole source, and stay in
   * dist/client-sourcemaps/ for an error tracker.
   */
  readonly sourceMapsPublic: boolean
  /**
   * PASSKEYS, PASSKEY_RP_ID and PASSKEY_RELATED_ORIGINS (docs/passkeys.md):
   * the relying party ID and the ceremonies' origins; null: no passkeys.
   */
  readonly passkeys: PasskeySettings | null
  /** SECOND_FACTOR and SECOND_FACTOR_REMEMBER_BROWSER (docs/second-factor.md). */
  readonly secondFactor: SecondFactorSettings
  /** EMAIL_CODES (docs/email-codes.md): whether the page offers the emailed sign-in code. */
  readonly emailCodes: EmailCodeSettings
  /** SSO_DISCOVERY (docs/sso.md, "Found by the address"): the page asks whether a typed address's domain signs in with single sign-on. */
  readonly ssoDiscovery: boolean
  /**
   * PASSWORD_MIN_LENGTH, for the page's hint only: the embedded reference
   * service enforces it from the same environment; behind an own backend the
   * operator sets what that backend enforces.
   */
  readonly passwordMinLength: number
  /** THEME, the logo, brand colours, background and favicon, each file read and checked (docs/branding.md). */
  readonly brand: BrandSettings
  /** DEFAULT_LOCALE: the language when neither ui_locales nor Accept-Language names a shipped one (docs/languages.md). */
  readonly defaultLocale: Locale
  /** PSEUDO_LOCALES (docs/languages.md): the page speaks `en-XA` and `ar-XB` too, for finding texts not in the catalogue and layouts that break. Off by default. */
  readonly pseudoLocales: boolean
  /** MESSAGES_DIR's texts, checked against English's keys and placeholders; empty when unset. */
  readonly messageOverrides: MessageOverrides
  /** CHALLENGE and its thresholds, EDGE_SECRET, a provider's keys (docs/challenge.md). */
  readonly challenge: ChallengeSettings
  /**
   * SOCIAL_CONNECTIONS (docs/social-sign-in.md), in the operator's order: the page's buttons, the social calls
   * proxied, the generic connections' icons served. Behind ACCOUNTS_URL the secrets are the backend's and may be left out.
   */
  readonly social: readonly SocialConnection[]
}

/** The host a REDIRECT_ALLOWED_HOSTS entry names, or the domain of a `*.domain` pattern. */
function patternBase (item: string): string {
  const host = item.toLowerCase()
  return host.startsWith('*.') ? host.slice(2) : host
}

function isHostPattern (item: string): boolean {
  return isHostname(patternBase(item))
}

/**
 * REDIRECT_ALLOWED_HOSTS. A pattern on a public suffix (`*.co.uk`,
 * `*.herokuapp.com`, `co.uk`) would let every site under it receive the
 * visitor after a login, other registrants' included: refused.
 */
function readRedirectAllowedHosts (env: Env): readonly string[] {
  const patterns = readList(env, 'REDIRECT_ALLOWED_HOSTS', isHostPattern, 'host names or *.domain patterns')
    .map((item) => item.toLowerCase())
  const onSuffix = patterns.find((pattern) => isPublicSuffix(patternBase(pattern)))
  if (onSuffix !== undefined) {
    throw new ConfigError('REDIRECT_ALLOWED_HOSTS', 'must not name a public suffix, whose sites belong to many owners', onSuffix)
  }
  return patterns
}

function isHostOrAddress (item: string): boolean {
  return isHostname(item.toLowerCase()) || isIpAddress(item)
}

function readBaseUrl (env: Env, name: string): string | null {
  const url = readHttpUrl(env, name)
  return url === undefined ? null : url.href.replace(/\/+$/, '')
}

function readRedisUrl (env: Env): string | null {
  const url = readServiceUrl(env, 'REDIS_URL', {
    protocols: ['redis:', 'rediss:'],
    example: 'redis://redis.internal:6379',
    // A host is required, and the path, if any, is a database number.
    accept: (candidate) => candidate.hostname !== '' && /^(\/\d{0,2})?$/.test(candidate.pathname)
  })
  return url === undefined ? null : url.href
}

function readEmail (env: Env, name: string, fallback: string): string {
  const value = readString(env, name) ?? fallback
  if (!/^[^\s@<>"]+@[^\s@<>"]+$/.test(value) || value.length > 254) {
    throw new ConfigError(name, 'must be an email address', value)
  }
  return value
}

function readProductName (env: Env): string {
  const value = readString(env, 'PRODUCT_NAME') ?? DEFAULT_PRODUCT_NAME
  // Its upper-case form is a login_method value, so it must survive a query string as is.
  if (!/^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$/u.test(value)) {
    throw new ConfigError('PRODUCT_NAME', 'must be 1 to 64 letters, digits, spaces, dots, dashes or underscores', value)
  }
  return value
}

function readGoogleClientId (env: Env): string | null {
  const value = readString(env, 'GOOGLE_CLIENT_ID')
  if (value === undefined) return null
  if (!/^[\w.-]{1,200}$/.test(value)) throw new ConfigError('GOOGLE_CLIENT_ID', 'is not a Google OAuth client id', value)
  return value
}

/**
 * SOCIAL_CONNECTIONS. With the embedded service every field is checked here, so that a bad key stops the start
 * with the variable's name before the service is started; an own backend (ACCOUNTS_URL) holds the secrets, so the
 * edge, which draws only the buttons and serves the icons, needs none of them.
 */
function readSocialConnections (env: Env, accountsUrl: string | null): readonly SocialConnection[] {
  return parseSocialConnections(readString(env, 'SOCIAL_CONNECTIONS'), { publicOnly: accountsUrl !== null })
}

/**
 * Reads every variable of the server (README.md, "Configuration"). Throws a
 * {@link ConfigError} naming the first bad variable; the result is deeply frozen.
 */
export function loadServerConfig (env: Env): ServerConfig {
  const host = readString(env, 'HOST') ?? DEFAULT_HOST
  if (!isHostOrAddress(host)) throw new ConfigError('HOST', 'must be a host name or an IP address', host)

  const port = readInteger(env, 'PORT', { min: 0, max: 65535, fallback: DEFAULT_PORT })
  const accountsUrl = readBaseUrl(env, 'ACCOUNTS_URL')
  const edgeAuthUrl = readBaseUrl(env, 'EDGE_AUTH_URL')
  const productName = readProductName(env)
  return deepFreeze<ServerConfig>({
    port,
    host,
    metricsPort: readMetricsPort(env, port),
    accountsUrl,
    edgeAuthUrl,
    accountsHealthUrl: readHealthUrl(env, 'ACCOUNTS_HEALTH_URL', 'ACCOUNTS_URL', accountsUrl),
    edgeAuthHealthUrl: readHealthUrl(env, 'EDGE_AUTH_HEALTH_URL', 'EDGE_AUTH_URL', edgeAuthUrl),
    readinessIncludesUpstreams: readBoolean(env, 'READINESS_INCLUDES_UPSTREAMS', false),
    googleClientId: readGoogleClientId(env),
    googleDisabledHostnames: readList(env, 'GOOGLE_DISABLED_HOSTNAMES', isHostOrAddress, 'host names')
      .map((item) => item.toLowerCase()),
    productName,
    supportEmail: readEmail(env, 'SUPPORT_EMAIL', DEFAULT_SUPPORT_EMAIL),
    redirectAllowedHosts: readRedirectAllowedHosts(env),
    localAccountsAllowedHosts: readList(env, 'LOCAL_ACCOUNTS_ALLOWED_HOSTS', isHostOrAddress, 'host names or IP addresses')
      .map((item) => item.toLowerCase()),
    cookieDomain: readCookieDomain(env),
    authCookieHttpOnly: readBoolean(env, 'AUTH_COOKIE_HTTPONLY', false),
    publicOrigin: readOrigin(env, 'PUBLIC_URL')?.origin ?? null,
    allowedHosts: readAllowedHosts(env),
    trustProxy: readTrustProxy(env),
    rateLimitPerMinute: readInteger(env, 'RATE_LIMIT_PER_MINUTE', { min: 1, max: 1_000_000, fallback: DEFAULT_RATE_LIMIT_PER_MINUTE }),
    redisUrl: readRedisUrl(env),
    upstreamTimeoutMs: readUpstreamTimeoutMs(env),
    drainSeconds: readInteger(env, 'DRAIN_SECONDS', { min: 0, max: MAX_DRAIN_SECONDS, fallback: DEFAULT_DRAIN_SECONDS }),
    accountsAnswerLimitBytes: readInteger(env, 'ACCOUNTS_ANSWER_LIMIT_BYTES', { ...ACCOUNTS_ANSWER_LIMIT_RANGE, fallback: DEFAULT_ACCOUNTS_ANSWER_LIMIT_BYTES }),
    domainCheckEnforced: readBoolean(env, 'DOMAIN_CHECK_ENFORCED', false),
    domainCheckTimeoutMs: readString(env, 'DOMAIN_CHECK_TIMEOUT_MS') === undefined
      ? null
      : readInteger(env, 'DOMAIN_CHECK_TIMEOUT_MS', { min: 1, max: 600_000, fallback: 0 }),
    logLevel: readLogLevel(env),
    sourceMapsPublic: readSourceMaps(env),
    passkeys: readPasskeys(env, accountsUrl, port),
    secondFactor: readSecondFactorSettings(env, accountsUrl === null),
    emailCodes: readEmailCodeSettings(env, accountsUrl === null),
    ssoDiscovery: readSsoDiscovery(env),
    passwordMinLength: readPasswordMinLength(env),
    brand: readBrandSettings(env, productName),
    defaultLocale: readDefaultLocale(env),
    messageOverrides: readMessagesDir(env),
    pseudoLocales: readBoolean(env, 'PSEUDO_LOCALES', false),
    challenge: readChallengeSettings(env),
    social: readSocialConnections(env, accountsUrl)
  })
}
