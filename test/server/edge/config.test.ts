import t from 'tap'
import { ConfigError, loadServerConfig } from '../../../server/edge/config.js'

function configErrorFor (env: Record<string, string>): ConfigError {
  try {
    loadServerConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a configuration error')
}

t.test('an empty environment gives the documented defaults', async (t) => {
  const config = loadServerConfig({})
  t.equal(config.port, 8080)
  t.equal(config.host, '0.0.0.0')
  t.equal(config.accountsUrl, null)
  t.equal(config.edgeAuthUrl, null)
  t.equal(config.googleClientId, null)
  t.same(config.googleDisabledHostnames, [])
  t.equal(config.productName, 'Threshold')
  t.equal(config.supportEmail, 'support@example.com')
  t.same(config.redirectAllowedHosts, [])
  t.same(config.localAccountsAllowedHosts, [])
  t.equal(config.cookieDomain, null)
  t.equal(config.allowedHosts, null, 'any host (the start warns)')
  t.equal(config.trustProxy, false)
  t.equal(config.rateLimitPerMinute, 30)
  t.equal(config.redisUrl, null)
  t.equal(config.upstreamTimeoutMs, 10_000)
  t.equal(config.drainSeconds, 10, 'a 10 s drain before a stop')
  t.equal(config.domainCheckTimeoutMs, null)
  t.equal(config.logLevel, 'info')
  t.equal(config.accountsAnswerLimitBytes, 65_536, 'answers up to 64 KiB')
  t.equal(config.domainCheckEnforced, false, 'the domain check is the page\'s alone')
})

t.test('every variable is read and normalised', async (t) => {
  const config = loadServerConfig({
    PORT: '9000',
    HOST: '127.0.0.1',
    ACCOUNTS_URL: 'https://accounts.internal/api/',
    EDGE_AUTH_URL: 'http://edge-auth:8081',
    GOOGLE_CLIENT_ID: '123-abc.apps.googleusercontent.com',
    GOOGLE_DISABLED_HOSTNAMES: ' Intranet.example.com , ,10.0.0.5',
    PRODUCT_NAME: 'Acme Cloud',
    SUPPORT_EMAIL: 'help@acme.test',
    REDIRECT_ALLOWED_HOSTS: 'app.acme.test,*.Acme.test',
    LOCAL_ACCOUNTS_ALLOWED_HOSTS: 'nas.local,192.168.1.10',
    COOKIE_DOMAIN: '.Acme.test',
    TRUST_PROXY: '2',
    RATE_LIMIT_PER_MINUTE: '100',
    UPSTREAM_TIMEOUT_MS: '2500',
    DRAIN_SECONDS: '0',
    DOMAIN_CHECK_TIMEOUT_MS: '3000',
    ACCOUNTS_ANSWER_LIMIT_BYTES: '262144',
    DOMAIN_CHECK_ENFORCED: 'TRUE',
    LOG_LEVEL: 'warn'
  })
  t.equal(config.port, 9000)
  t.equal(config.accountsUrl, 'https://accounts.internal/api', 'a trailing slash is dropped')
  t.equal(config.edgeAuthUrl, 'http://edge-auth:8081')
  t.same(config.googleDisabledHostnames, ['intranet.example.com', '10.0.0.5'])
  t.equal(config.productName, 'Acme Cloud')
  t.same(config.redirectAllowedHosts, ['app.acme.test', '*.acme.test'])
  t.same(config.localAccountsAllowedHosts, ['nas.local', '192.168.1.10'])
  t.equal(config.cookieDomain, 'acme.test')
  t.equal(config.trustProxy, 2)
  t.equal(config.rateLimitPerMinute, 100)
  t.equal(config.upstreamTimeoutMs, 2500)
  t.equal(config.drainSeconds, 0)
  t.equal(config.domainCheckTimeoutMs, 3000)
  t.equal(config.accountsAnswerLimitBytes, 262_144)
  t.equal(config.domainCheckEnforced, true)
  t.equal(config.logLevel, 'warn')
})

t.test('TRUST_PROXY takes addresses, CIDR ranges and proxy-addr names', async (t) => {
  t.same(loadServerConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.0.1, fd00::/8, loopback' }).trustProxy,
    ['10.0.0.0/8', '192.168.0.1', 'fd00::/8', 'loopback'])
})

t.test('ALLOWED_HOSTS takes port-free names and addresses, in canonical form; without it, PUBLIC_URL\'s host', async (t) => {
  t.same(loadServerConfig({ ALLOWED_HOSTS: ' SignIn.Example.com , signin.example.com., 192.0.2.1,::1, [2001:DB8::1],threshold_edge' }).allowedHosts,
    ['signin.example.com', '192.0.2.1', '[::1]', '[2001:db8::1]', 'threshold_edge'])
  t.same(loadServerConfig({ PUBLIC_URL: 'https://SignIn.Example.com:8443' }).allowedHosts, ['signin.example.com'])
  t.same(loadServerConfig({ PUBLIC_URL: 'https://signin.example.com', ALLOWED_HOSTS: 'other.example.com' }).allowedHosts, ['other.example.com'],
    'ALLOWED_HOSTS, when set, is the whole list')
  t.ok(Object.isFrozen(loadServerConfig({ ALLOWED_HOSTS: 'a.test' }).allowedHosts))
})

t.test('the configuration cannot be changed after start', async (t) => {
  const config = loadServerConfig({ REDIRECT_ALLOWED_HOSTS: 'a.test' })
  t.ok(Object.isFrozen(config))
  t.ok(Object.isFrozen(config.redirectAllowedHosts))
})

t.test('AUTH_COOKIE_HTTPONLY: false by default (the page writes a readable auth cookie); true or false, else refused naming it', async (t) => {
  t.equal(loadServerConfig({}).authCookieHttpOnly, false)
  t.equal(loadServerConfig({ AUTH_COOKIE_HTTPONLY: 'true' }).authCookieHttpOnly, true)
  t.equal(loadServerConfig({ AUTH_COOKIE_HTTPONLY: 'FALSE' }).authCookieHttpOnly, false)
  for (const value of ['yes', '1', 'on', 'httponly']) {
    const error = configErrorFor({ AUTH_COOKIE_HTTPONLY: value })
    t.equal(error.variable, 'AUTH_COOKIE_HTTPONLY', value)
    t.equal(error.message, `AUTH_COOKIE_HTTPONLY must be true or false (got "${value}")`, 'one line, naming the variable')
  }
})

const badValues: Array<[string, string, RegExp]> = [
  ['PORT', 'abc', /PORT must be a whole number from 0 to 65535 \(got "abc"\)/],
  ['PORT', '70000', /PORT must be a whole number/],
  ['PORT', '-1', /PORT must be a whole number/],
  ['HOST', 'not a host!', /HOST must be a host name or an IP address/],
  ['ACCOUNTS_URL', 'not-a-url', /ACCOUNTS_URL must be an absolute http or https URL \(got "not-a-url"\)/],
  ['ACCOUNTS_URL', 'ftp://files.example.com', /ACCOUNTS_URL must use http or https/],
  ['ACCOUNTS_URL', 'https://user:secret@accounts.example.com', /ACCOUNTS_URL must not contain credentials$/],
  ['EDGE_AUTH_URL', 'http://edge/?x=1', /EDGE_AUTH_URL must not have a query string/],
  ['TRUST_PROXY', 'yes', /TRUST_PROXY must be a comma-separated list of a hop count, or IP addresses and CIDR ranges \(got "yes"\)/],
  ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY must be/],
  ['TRUST_PROXY', 'true', /TRUST_PROXY must be/],
  ['RATE_LIMIT_PER_MINUTE', '0', /RATE_LIMIT_PER_MINUTE must be a whole number from 1/],
  ['UPSTREAM_TIMEOUT_MS', '1.5', /UPSTREAM_TIMEOUT_MS must be a whole number/],
  ['DRAIN_SECONDS', '-1', /DRAIN_SECONDS must be a whole number from 0 to 300 \(got "-1"\)/],
  ['DRAIN_SECONDS', '301', /DRAIN_SECONDS must be a whole number from 0 to 300/],
  ['LOG_LEVEL', 'verbose', /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
  ['SUPPORT_EMAIL', 'nobody', /SUPPORT_EMAIL must be an email address/],
  ['PRODUCT_NAME', '<script>', /PRODUCT_NAME must be 1 to 64 letters/],
  ['REDIRECT_ALLOWED_HOSTS', 'good.test,bad_host!', /REDIRECT_ALLOWED_HOSTS must be a comma-separated list of host names or \*\.domain patterns \(got "bad_host!"\)/],
  ['LOCAL_ACCOUNTS_ALLOWED_HOSTS', '*.lan', /LOCAL_ACCOUNTS_ALLOWED_HOSTS must be a comma-separated list of host names or IP addresses/],
  ['ALLOWED_HOSTS', 'signin.example.com:443', /ALLOWED_HOSTS must be a comma-separated list of host names or IP addresses, without a port \(got "signin.example.com:443"\)/],
  ['ALLOWED_HOSTS', 'https://signin.example.com', /ALLOWED_HOSTS must be a comma-separated list of host names/],
  ['ALLOWED_HOSTS', 'a.test,*.example.com', /ALLOWED_HOSTS must be .* \(got "\*\.example\.com"\)/],
  ['ALLOWED_HOSTS', 'signin.example.com/path', /ALLOWED_HOSTS must be/],
  ['PUBLIC_URL', 'https://signin.example.com/login', /PUBLIC_URL must be an origin, without a path/],
  ['COOKIE_DOMAIN', 'exa mple.com', /COOKIE_DOMAIN must be a domain name/],
  ['COOKIE_DOMAIN', 'co.uk', /COOKIE_DOMAIN must not be a public suffix such as co.uk or herokuapp.com \(got "co.uk"\)/],
  ['COOKIE_DOMAIN', '.herokuapp.com', /COOKIE_DOMAIN must not be a public suffix/],
  ['COOKIE_DOMAIN', 'com', /COOKIE_DOMAIN must not be a public suffix/],
  ['REDIRECT_ALLOWED_HOSTS', 'app.acme.test,*.co.uk', /REDIRECT_ALLOWED_HOSTS must not name a public suffix, whose sites belong to many owners \(got "\*\.co\.uk"\)/],
  ['REDIRECT_ALLOWED_HOSTS', '*.HerokuApp.com', /REDIRECT_ALLOWED_HOSTS must not name a public suffix, .*"\*\.herokuapp\.com"/],
  ['REDIRECT_ALLOWED_HOSTS', 'co.uk', /REDIRECT_ALLOWED_HOSTS must not name a public suffix/],
  ['REDIRECT_ALLOWED_HOSTS', '*.github.io', /REDIRECT_ALLOWED_HOSTS must not name a public suffix/],
  ['GOOGLE_CLIENT_ID', 'has spaces in it', /GOOGLE_CLIENT_ID is not a Google OAuth client id/],
  ['DOMAIN_CHECK_TIMEOUT_MS', 'soon', /DOMAIN_CHECK_TIMEOUT_MS must be a whole number/],
  ['ACCOUNTS_ANSWER_LIMIT_BYTES', '64k', /ACCOUNTS_ANSWER_LIMIT_BYTES must be a whole number from 1024 to 16777216 \(got "64k"\)/],
  ['ACCOUNTS_ANSWER_LIMIT_BYTES', '0', /ACCOUNTS_ANSWER_LIMIT_BYTES must be a whole number from 1024/],
  ['ACCOUNTS_ANSWER_LIMIT_BYTES', '1023', /ACCOUNTS_ANSWER_LIMIT_BYTES must be a whole number from 1024/],
  ['ACCOUNTS_ANSWER_LIMIT_BYTES', '16777217', /ACCOUNTS_ANSWER_LIMIT_BYTES must be a whole number from 1024 to 16777216/],
  ['ACCOUNTS_ANSWER_LIMIT_BYTES', '-65536', /ACCOUNTS_ANSWER_LIMIT_BYTES must be a whole number/],
  ['ACCOUNTS_ANSWER_LIMIT_BYTES', '65536.5', /ACCOUNTS_ANSWER_LIMIT_BYTES must be a whole number/],
  ['DOMAIN_CHECK_ENFORCED', 'yes', /DOMAIN_CHECK_ENFORCED must be true or false \(got "yes"\)/],
  ['DOMAIN_CHECK_ENFORCED', '1', /DOMAIN_CHECK_ENFORCED must be true or false/],
  ['SOURCE_MAPS', 'yes', /SOURCE_MAPS must be public or private \(got "yes"\)/],
  ['REDIS_URL', 'redis.internal:6379', /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL such as redis:\/\/redis.internal:6379/],
  ['REDIS_URL', 'http://redis.internal:6379', /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
  ['REDIS_URL', 'redis://', /REDIS_URL must be/],
  ['REDIS_URL', 'redis://redis.internal:6379/cache', /REDIS_URL must be/],
  ['REDIS_URL', 'redis://redis.internal:99999', /REDIS_URL must be/],
  ['REDIS_URL', 'redis://redis.internal#0', /REDIS_URL must be/],
  ['ACCOUNTS_HEALTH_URL', 'accounts.internal/health', /ACCOUNTS_HEALTH_URL must be an absolute http or https URL \(got "accounts.internal\/health"\)/],
  ['ACCOUNTS_HEALTH_URL', 'tcp://accounts.internal:8080', /ACCOUNTS_HEALTH_URL must use http or https/],
  ['EDGE_AUTH_HEALTH_URL', 'https://probe:secret@edge-auth.internal/health', /EDGE_AUTH_HEALTH_URL must not contain credentials$/],
  ['EDGE_AUTH_HEALTH_URL', 'https://edge-auth.internal/health?deep=1', /EDGE_AUTH_HEALTH_URL must not have a query string or fragment/],
  ['ACCOUNTS_HEALTH_URL', 'https://accounts.internal/health', /ACCOUNTS_HEALTH_URL is set but ACCOUNTS_URL is not: the embedded reference service would be probed on its own route instead; set ACCOUNTS_URL too, or unset ACCOUNTS_HEALTH_URL/],
  ['EDGE_AUTH_HEALTH_URL', 'https://edge-auth.internal/health', /EDGE_AUTH_HEALTH_URL is set but EDGE_AUTH_URL is not/],
  ['READINESS_INCLUDES_UPSTREAMS', 'yes', /READINESS_INCLUDES_UPSTREAMS must be true or false \(got "yes"\)/],
  ['READINESS_INCLUDES_UPSTREAMS', '1', /READINESS_INCLUDES_UPSTREAMS must be true or false/]
]

for (const [variable, value, message] of badValues) {
  t.test(`${variable}=${value} is refused with a message naming ${variable}`, async (t) => {
    const error = configErrorFor({ [variable]: value })
    t.equal(error.variable, variable)
    t.equal(error.code, 'THRESHOLD_INVALID_CONFIG')
    t.match(error.message, message)
  })
}

t.test('PASSWORD_MIN_LENGTH, for the page\'s hint: 8 by default, up to 64, never below 8, refused as the reference service refuses it', async (t) => {
  t.equal(loadServerConfig({}).passwordMinLength, 8)
  t.equal(loadServerConfig({ PASSWORD_MIN_LENGTH: '15' }).passwordMinLength, 15)
  t.equal(loadServerConfig({ PASSWORD_MIN_LENGTH: '64', ACCOUNTS_URL: 'https://accounts.internal' }).passwordMinLength, 64, 'an own backend\'s operator sets it too')
  for (const value of ['7', '0', '65', '15.5', 'fifteen', '-8', '0x10']) {
    const error = configErrorFor({ PASSWORD_MIN_LENGTH: value })
    t.equal(error.variable, 'PASSWORD_MIN_LENGTH', value)
    t.match(error.message, /^PASSWORD_MIN_LENGTH must be a whole number from 8 to 64/, value)
  }
})

t.test('readiness: each service\'s base URL is probed unless its health URL is set, the embedded service on its own route; upstreams do not count by default', async (t) => {
  const defaults = loadServerConfig({})
  t.equal(defaults.accountsHealthUrl, null, 'the embedded service: its own health route')
  t.equal(defaults.edgeAuthHealthUrl, null)
  t.equal(defaults.readinessIncludesUpstreams, false)
  const own = loadServerConfig({ ACCOUNTS_URL: 'https://accounts.internal/api/', EDGE_AUTH_URL: 'http://edge-auth:8081' })
  t.equal(own.accountsHealthUrl, 'https://accounts.internal/api')
  t.equal(own.edgeAuthHealthUrl, 'http://edge-auth:8081')
  const overridden = loadServerConfig({
    ACCOUNTS_URL: 'https://accounts.internal/api',
    ACCOUNTS_HEALTH_URL: 'https://accounts.internal/health/ready',
    EDGE_AUTH_URL: 'http://edge-auth:8081',
    EDGE_AUTH_HEALTH_URL: 'http://edge-auth:8082/',
    READINESS_INCLUDES_UPSTREAMS: 'TRUE'
  })
  t.equal(overridden.accountsHealthUrl, 'https://accounts.internal/health/ready')
  t.equal(overridden.edgeAuthHealthUrl, 'http://edge-auth:8082/')
  t.equal(overridden.readinessIncludesUpstreams, true)
})

t.test('source maps are private unless SOURCE_MAPS=public', async (t) => {
  t.equal(loadServerConfig({}).sourceMapsPublic, false)
  t.equal(loadServerConfig({ SOURCE_MAPS: 'private' }).sourceMapsPublic, false)
  t.equal(loadServerConfig({ SOURCE_MAPS: 'public' }).sourceMapsPublic, true)
})

t.test('registrable domains and their subdomains stay allowed beside the refused suffixes', async (t) => {
  const config = loadServerConfig({
    REDIRECT_ALLOWED_HOSTS: '*.example.co.uk,demo.herokuapp.com,*.ada.github.io,127.0.0.1,localhost,*.intranet',
    COOKIE_DOMAIN: 'example.co.uk'
  })
  t.same(config.redirectAllowedHosts, ['*.example.co.uk', 'demo.herokuapp.com', '*.ada.github.io', '127.0.0.1', 'localhost', '*.intranet'])
  t.equal(config.cookieDomain, 'example.co.uk')
  t.equal(loadServerConfig({ COOKIE_DOMAIN: 'demo.herokuapp.com' }).cookieDomain, 'demo.herokuapp.com')
})

t.test('a very long bad value is shortened in the message', async (t) => {
  const error = configErrorFor({ PORT: 'x'.repeat(500) })
  t.ok(error.message.length < 200)
})

t.test('REDIS_URL takes redis:// and rediss:// URLs with a password and a database number', async (t) => {
  // Instances sharing Redis share an EDGE_SECRET (docs/scale-out.md); without one the edge refuses to start.
  const EDGE_SECRET = 'one edge secret for every instance, 32+ characters'
  t.equal(loadServerConfig({ REDIS_URL: 'redis://redis.internal:6379', EDGE_SECRET }).redisUrl, 'redis://redis.internal:6379')
  t.equal(loadServerConfig({ REDIS_URL: ' rediss://:s3cret@cache.example.com:6380/2 ', EDGE_SECRET }).redisUrl, 'rediss://:s3cret@cache.example.com:6380/2')
  t.equal(loadServerConfig({ REDIS_URL: 'redis://default:pw@10.0.0.5', CHALLENGE: 'off', EDGE_SECRET }).redisUrl, 'redis://default:pw@10.0.0.5', 'without a challenge, EDGE_SECRET is still needed: it names clients in the shared rate limits')
})

t.test('a refused REDIS_URL is not repeated in the message, since it may hold a password', async (t) => {
  const error = configErrorFor({ REDIS_URL: 'https://:hunter2@cache.example.com' })
  t.equal(error.variable, 'REDIS_URL')
  t.notMatch(error.message, /hunter2|cache\.example\.com/)
  t.match(error.message, /value not shown/)
})

t.test('passkeys: on with the embedded service on a page browsers run WebAuthn on, off with ACCOUNTS_URL unless told', async (t) => {
  t.same(loadServerConfig({}).passkeys, { rpId: 'localhost', origins: ['http://localhost:8080'] }, 'http://localhost is a secure context')
  t.same(loadServerConfig({ PUBLIC_URL: 'https://signin.example.com' }).passkeys, { rpId: 'signin.example.com', origins: ['https://signin.example.com'] })
  t.equal(loadServerConfig({ PUBLIC_URL: 'https://signin.example.com', PASSKEYS: 'false' }).passkeys, null)
  t.equal(loadServerConfig({ PUBLIC_URL: 'https://signin.example.com', ACCOUNTS_URL: 'https://accounts.internal' }).passkeys, null,
    'an own backend answers the passkey calls only once the operator says so')
  t.same(loadServerConfig({ PUBLIC_URL: 'https://signin.example.com', ACCOUNTS_URL: 'https://accounts.internal', PASSKEYS: 'true' }).passkeys?.rpId, 'signin.example.com')
  t.equal(loadServerConfig({ PUBLIC_URL: 'http://203.0.113.7:8080' }).passkeys, null, 'no passkeys on an IP address: off by default')
  t.equal(loadServerConfig({ PUBLIC_URL: 'http://signin.example.com' }).passkeys, null, 'nor over plain http off localhost')
  t.same(loadServerConfig({
    PUBLIC_URL: 'https://signin.example.co.uk',
    PASSKEY_RP_ID: 'Example.co.uk',
    PASSKEY_RELATED_ORIGINS: 'https://login.example.org, https://signin.example.co.uk,https://example.net/'
  }).passkeys, {
    rpId: 'example.co.uk',
    origins: ['https://signin.example.co.uk', 'https://login.example.org', 'https://example.net']
  }, 'a registrable parent domain; the page\'s own origin first and once')
})

t.test('bad passkey variables stop the start with the variable named', async (t) => {
  const page = { PUBLIC_URL: 'https://signin.example.co.uk' }
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ ...page, PASSKEYS: 'yes' }, 'PASSKEYS', /must be true or false/],
    [{ PUBLIC_URL: 'http://203.0.113.7', PASSKEYS: 'true' }, 'PASSKEYS', /domain name over https/],
    [{ ...page, PASSKEY_RP_ID: 'other.example.com' }, 'PASSKEY_RP_ID', /page's host \(signin\.example\.co\.uk\) or a parent domain/],
    [{ ...page, PASSKEY_RP_ID: 'gn.example.co.uk' }, 'PASSKEY_RP_ID', /parent domain/],
    [{ ...page, PASSKEY_RP_ID: 'co.uk' }, 'PASSKEY_RP_ID', /public suffix/],
    [{ PUBLIC_URL: 'https://demo.github.io', PASSKEY_RP_ID: 'github.io' }, 'PASSKEY_RP_ID', /public suffix/],
    [{ ...page, PASSKEY_RP_ID: 'https://example.co.uk' }, 'PASSKEY_RP_ID', /domain name, without scheme/],
    [{ ...page, PASSKEY_RELATED_ORIGINS: 'http://login.example.org' }, 'PASSKEY_RELATED_ORIGINS', /https origins/],
    [{ ...page, PASSKEY_RELATED_ORIGINS: 'https://login.example.org/path' }, 'PASSKEY_RELATED_ORIGINS', /https origins/]
  ]
  for (const [env, variable, message] of cases) {
    const error = configErrorFor(env)
    t.equal(error.variable, variable, JSON.stringify(env))
    t.match(error.message, message)
  }
  t.equal(loadServerConfig({ ...page, PASSKEYS: 'false', PASSKEY_RP_ID: 'other.example.com' }).passkeys, null, 'unread while passkeys are off')
})
