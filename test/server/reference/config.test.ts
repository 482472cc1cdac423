import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../../server/shared/env-parsing.js'
import { loadReferenceConfig } from '../../../server/reference/config.js'

function configErrorFor (env: Record<string, string>): ConfigError {
  try {
    loadReferenceConfig(env, 8080)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a configuration error')
}

t.test('without DATABASE_URL the accounts stay in the SQLite file of DATA_DIR', async (t) => {
  t.equal(loadReferenceConfig({}, 8080).databaseUrl, null)
})

t.test('DATABASE_URL takes postgres:// and postgresql:// URLs as written, with their libpq parameters', async (t) => {
  for (const url of [
    'postgres://threshold:s3cret@db.internal:5432/threshold',
    'postgresql://threshold@db.internal/threshold?sslmode=verify-full',
    'postgresql:///threshold?host=/var/run/postgresql'
  ]) {
    t.equal(loadReferenceConfig({ DATABASE_URL: url }, 8080).databaseUrl, url)
  }
})

const badDatabaseUrls = [
  'db.internal:5432/threshold',
  'mysql://threshold:s3cret@db.internal/threshold',
  'http://db.internal/threshold',
  'postgres://threshold:s3cret@db.internal:5432/threshold#x'
]

for (const value of badDatabaseUrls) {
  t.test(`DATABASE_URL=${value} is refused with a message naming DATABASE_URL and not its value`, async (t) => {
    const error = configErrorFor({ DATABASE_URL: value })
    t.equal(error.variable, 'DATABASE_URL')
    t.match(error.message, /^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL such as postgres:\/\/threshold:secret@db.internal:5432\/threshold/)
    t.notMatch(error.message, /s3cret|db\.internal\/threshold|mysql/)
  })
}

t.test('the reference service serves passkeys by default, for PUBLIC_URL\'s host and the related origins', async (t) => {
  t.same(loadReferenceConfig({ PUBLIC_URL: 'https://signin.example.com' }, 8080).passkeys, { rpId: 'signin.example.com', origins: ['https://signin.example.com'] })
  t.same(loadReferenceConfig({ PUBLIC_URL: 'https://signin.example.com', PASSKEY_RP_ID: 'example.com', PASSKEY_RELATED_ORIGINS: 'https://login.example.org' }, 8080).passkeys,
    { rpId: 'example.com', origins: ['https://signin.example.com', 'https://login.example.org'] })
  t.equal(loadReferenceConfig({ PUBLIC_URL: 'https://signin.example.com', PASSKEYS: 'false' }, 8080).passkeys, null)
  t.same(loadReferenceConfig({}, 8080).passkeys, { rpId: 'localhost', origins: ['http://localhost:8080'] })
  t.equal(configErrorFor({ PUBLIC_URL: 'https://signin.example.com', PASSKEY_RP_ID: 'example.org' }).variable, 'PASSKEY_RP_ID')
  t.equal(configErrorFor({ PUBLIC_URL: 'https://signin.example.com', PASSKEY_RELATED_ORIGINS: 'login.example.org' }).variable, 'PASSKEY_RELATED_ORIGINS')
})

t.test('the breach corpus is the public range API by default, asked for 1.5 s, failing open', async (t) => {
  t.same(loadReferenceConfig({}, 8080).breachedPasswords, { rangeUrl: 'https://api.pwnedpasswords.com/range', timeoutMs: 1500, failure: 'open' })
  t.same(loadReferenceConfig({ BREACHED_PASSWORDS_URL: 'http://hibp-mirror.internal:8080/range/', BREACHED_PASSWORDS_TIMEOUT_MS: '400', BREACHED_PASSWORDS_FAILURE: 'closed' }, 8080).breachedPasswords,
    { rangeUrl: 'http://hibp-mirror.internal:8080/range', timeoutMs: 400, failure: 'closed' }, 'a mirror, without its trailing slash')
  t.equal(loadReferenceConfig({ BREACHED_PASSWORDS: 'off' }, 8080).breachedPasswords, null)
  t.equal(loadReferenceConfig({ BREACHED_PASSWORDS: 'ON' }, 8080).breachedPasswords?.failure, 'open')
})

const badBreachSettings: Array<[Record<string, string>, string, RegExp]> = [
  [{ BREACHED_PASSWORDS: 'false' }, 'BREACHED_PASSWORDS', /must be on or off/],
  [{ BREACHED_PASSWORDS_URL: 'api.pwnedpasswords.com/range' }, 'BREACHED_PASSWORDS_URL', /absolute http or https URL/],
  [{ BREACHED_PASSWORDS_URL: 'ftp://mirror.internal/range' }, 'BREACHED_PASSWORDS_URL', /http or https/],
  [{ BREACHED_PASSWORDS_URL: 'https://mirror.internal/range?key=1' }, 'BREACHED_PASSWORDS_URL', /query string/],
  [{ BREACHED_PASSWORDS_TIMEOUT_MS: '50' }, 'BREACHED_PASSWORDS_TIMEOUT_MS', /from 100 to 10000/],
  [{ BREACHED_PASSWORDS_TIMEOUT_MS: '1.5s' }, 'BREACHED_PASSWORDS_TIMEOUT_MS', /whole number/],
  [{ BREACHED_PASSWORDS_FAILURE: 'fail-open' }, 'BREACHED_PASSWORDS_FAILURE', /must be open or closed/]
]

for (const [env, variable, reason] of badBreachSettings) {
  t.test(`${JSON.stringify(env)} stops the start with a message naming ${variable}`, async (t) => {
    const error = configErrorFor(env)
    t.equal(error.variable, variable)
    t.match(error.message, reason)
  })
}

t.test('the edge\'s UPSTREAM_TIMEOUT_MS, which the embedded service shares, is 10 s by default; a bad value stops the start', async (t) => {
  t.equal(loadReferenceConfig({}, 8080).upstreamTimeoutMs, 10_000)
  t.equal(loadReferenceConfig({ UPSTREAM_TIMEOUT_MS: '3000' }, 8080).upstreamTimeoutMs, 3000)
  for (const value of ['0', 'soon', '600001']) t.equal(configErrorFor({ UPSTREAM_TIMEOUT_MS: value }).variable, 'UPSTREAM_TIMEOUT_MS', value)
})

t.test('PASSWORD_MIN_LENGTH is 8 by default, may be raised to 64, and is never below 8', async (t) => {
  t.equal(loadReferenceConfig({}, 8080).passwordMinLength, 8)
  t.equal(loadReferenceConfig({ PASSWORD_MIN_LENGTH: '15' }, 8080).passwordMinLength, 15)
  t.equal(loadReferenceConfig({ PASSWORD_MIN_LENGTH: '64' }, 8080).passwordMinLength, 64)
  for (const value of ['7', '0', '65', 'fifteen', '-8']) {
    const error = configErrorFor({ PASSWORD_MIN_LENGTH: value })
    t.equal(error.variable, 'PASSWORD_MIN_LENGTH', value)
    t.match(error.message, /^PASSWORD_MIN_LENGTH must be a whole number from 8 to 64/, value)
  }
})

t.test('sessions: a 30 s refresh grace, 14 days idle and 30 days at most by default; the idle timeout follows a shorter maximum', async (t) => {
  t.same(loadReferenceConfig({}, 8080).sessions, { reuseGraceSeconds: 30, idleTimeoutDays: 14, maxLifetimeDays: 30 })
  t.same(loadReferenceConfig({ REFRESH_REUSE_GRACE_SECONDS: '0' }, 8080).sessions.reuseGraceSeconds, 0, '0 turns the grace off')
  t.same(loadReferenceConfig({ SESSION_MAX_LIFETIME_DAYS: '1' }, 8080).sessions, { reuseGraceSeconds: 30, idleTimeoutDays: 1, maxLifetimeDays: 1 })
  t.same(loadReferenceConfig({ SESSION_MAX_LIFETIME_DAYS: '90', SESSION_IDLE_TIMEOUT_DAYS: '30' }, 8080).sessions,
    { reuseGraceSeconds: 30, idleTimeoutDays: 30, maxLifetimeDays: 90 })
})

for (const [env, variable] of [
  [{ REFRESH_REUSE_GRACE_SECONDS: '-1' }, 'REFRESH_REUSE_GRACE_SECONDS'],
  [{ REFRESH_REUSE_GRACE_SECONDS: '301' }, 'REFRESH_REUSE_GRACE_SECONDS'],
  [{ REFRESH_REUSE_GRACE_SECONDS: '30s' }, 'REFRESH_REUSE_GRACE_SECONDS'],
  [{ SESSION_MAX_LIFETIME_DAYS: '0' }, 'SESSION_MAX_LIFETIME_DAYS'],
  [{ SESSION_MAX_LIFETIME_DAYS: 'forever' }, 'SESSION_MAX_LIFETIME_DAYS'],
  [{ SESSION_IDLE_TIMEOUT_DAYS: '0' }, 'SESSION_IDLE_TIMEOUT_DAYS'],
  [{ SESSION_IDLE_TIMEOUT_DAYS: '31' }, 'SESSION_IDLE_TIMEOUT_DAYS'],
  [{ SESSION_MAX_LIFETIME_DAYS: '7', SESSION_IDLE_TIMEOUT_DAYS: '14' }, 'SESSION_IDLE_TIMEOUT_DAYS']
] as const) {
  t.test(`${JSON.stringify(env)} stops the start with a message naming ${variable}`, async (t) => {
    const error = configErrorFor(env)
    t.equal(error.variable, variable)
    t.match(error.message, new RegExp(`^${variable} `))
  })
}

t.test('OIDC_CLIENTS: none by default; JSON, or a JSON file relative to the working directory', async (t) => {
  t.same(loadReferenceConfig({}, 8080).oidcClients, [])
  const client = { client_id: 'app', client_name: 'App', redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'none' }
  t.same(loadReferenceConfig({ OIDC_CLIENTS: JSON.stringify([client]) }, 8080).oidcClients.map((each) => each.clientId), ['app'])
  const dir = mkdtempSync(join(tmpdir(), 'threshold-oidc-config-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'clients.json'), JSON.stringify([client]))
  t.same(loadReferenceConfig({ OIDC_CLIENTS: join(dir, 'clients.json') }, 8080).oidcClients.map((each) => each.clientId), ['app'])
  const cwd = process.cwd()
  process.chdir(dir)
  t.teardown(() => process.chdir(cwd))
  t.same(loadReferenceConfig({ OIDC_CLIENTS: 'clients.json' }, 8080).oidcClients.map((each) => each.clientId), ['app'])
  const error = configErrorFor({ OIDC_CLIENTS: JSON.stringify([client, { ...client, client_id: 'two', redirect_uris: ['http://app.example.com/cb'] }]) })
  t.equal(error.variable, 'OIDC_CLIENTS')
  t.equal(error.message, 'OIDC_CLIENTS[1].redirect_uris[0]: must be https (plain http is allowed only for loopback hosts)')
})
