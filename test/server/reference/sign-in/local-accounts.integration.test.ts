import { decodeJwt } from 'jose'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { Secret, TOTP } from 'otpauth'
import { freeLoopbackPort } from '../../../fixtures/servers/local-services.js'
import t, { type Test } from 'tap'
import { buildLocalAccountsServer } from '../../../../server/reference/server.js'
import { loggerOptions } from '../../../../server/shared/logger.js'
import { hashPassword } from '../../../../server/reference/passwords/passwords.js'
import { databaseFile } from '../../../../server/reference/store/open-store.js'
import { SqliteAccountStore } from '../../../../server/reference/store/sqlite-store.js'
import { listen } from '../../../fixtures/servers/edge.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, temporaryDataDir, TEST_PUBLIC_URL, type ReferenceOptions } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const REFERENCE_MAIN = fileURLToPath(new URL('../../../../dist/server/reference.js', import.meta.url))
const OTHER_PAGE = 'https://console.example.test'
const STRANGER = 'https://evil.example.test'

/** The reference services with local accounts' `/authenticate` on a second loopback listener. */
async function startLocalAccounts (t: Test, options: ReferenceOptions & { perMinute?: number } = {}) {
  const reference = await startReference(t, { ...options, env: { LOCAL_ACCOUNTS_ALLOWED_ORIGINS: `${OTHER_PAGE}/`, ...options.env } })
  await registerAccount(reference.base, 'local@example.com')
  const local = await buildLocalAccountsServer({
    services: reference.services,
    logger: options.logStream === undefined ? false : { ...loggerOptions('info'), stream: options.logStream },
    perMinute: options.perMinute ?? 1000
  })
  t.teardown(() => local.close())
  const url = await listen(local)
  const authenticate = (body: unknown, headers: Record<string, string> = {}) => fetch(`${url}/authenticate`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body)
  })
  /** A JSON POST to this listener, as the page makes it (from its origin). */
  const post = (path: string, body: unknown) => postJson(url, path, body, { origin: TEST_PUBLIC_URL })
  return { reference, url, authenticate, post }
}

/** A clock the service reads, moved by whole 30-second steps so that each code is a new one (a step is accepted once). */
class Clock {
  // Near the real time (auth tokens are checked against this clock), at the start of a step.
  value = Math.floor(Date.now() / 30_000) * 30_000 + 1000
  now = (): number => this.value
  nextStep (): void { this.value += 30_000 }
}

/** The code the authenticator app shows for `secret` at `clock`'s time. */
function codeAt (clock: Clock, secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock.value })
}

/** Makes local@example.com's organisation require a second factor (require-second-factor). */
async function requireSecondFactor (reference: Awaited<ReturnType<typeof startLocalAccounts>>['reference']): Promise<void> {
  const { store } = reference.services
  await store.addMembership((await store.findAccountByEmail('local@example.com'))!.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)
}

t.test('the page\'s origin logs in at /authenticate and may read the answer', async (t) => {
  const { authenticate } = await startLocalAccounts(t)
  const response = await authenticate({ email: 'local@example.com', password: GOOD_PASSWORD }, { origin: TEST_PUBLIC_URL })
  t.equal(response.status, 200)
  t.equal(response.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL)
  t.equal(response.headers.get('vary'), 'Origin')
  t.equal(response.headers.get('cache-control'), 'no-store')
  t.equal(response.headers.get('access-control-allow-credentials'), null, 'no cookies are involved')
  t.same(Object.keys(await response.json() as object).sort(), ['auth', 'refresh'])
})

t.test('a preflight from an allowed origin is answered, Private Network Access included', async (t) => {
  const { url } = await startLocalAccounts(t)
  const response = await fetch(`${url}/authenticate`, {
    method: 'OPTIONS',
    headers: {
      origin: OTHER_PAGE,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
      'access-control-request-private-network': 'true'
    }
  })
  t.equal(response.status, 204)
  t.equal(response.headers.get('access-control-allow-origin'), OTHER_PAGE, 'an origin from LOCAL_ACCOUNTS_ALLOWED_ORIGINS')
  t.equal(response.headers.get('access-control-allow-methods'), 'POST')
  t.equal(response.headers.get('access-control-allow-headers'), 'content-type')
  t.equal(response.headers.get('access-control-allow-private-network'), 'true')
  t.equal(response.headers.get('access-control-max-age'), '600')

  const withoutPna = await fetch(`${url}/authenticate`, { method: 'OPTIONS', headers: { origin: TEST_PUBLIC_URL, 'access-control-request-method': 'POST' } })
  t.equal(withoutPna.status, 204)
  t.equal(withoutPna.headers.get('access-control-allow-private-network'), null, 'only said when asked')
})

t.test('another origin gets 403 without CORS headers, and no password is checked', async (t) => {
  const logs = logCollector()
  const { reference, url, authenticate } = await startLocalAccounts(t, { logStream: logs.stream })
  for (const origin of [STRANGER, 'null', `${TEST_PUBLIC_URL}.evil.test`, TEST_PUBLIC_URL.replace('https:', 'http:')]) {
    const response = await authenticate({ email: 'local@example.com', password: 'a guess' }, { origin })
    t.equal(response.status, 403, `${origin}: 403`)
    t.same(await response.json(), { error: 'This page may not use these local accounts.' })
    t.equal(response.headers.get('access-control-allow-origin'), null, `${origin}: the browser may not read the answer`)
    const preflight = await fetch(`${url}/authenticate`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } })
    t.equal(preflight.status, 403, `${origin}: preflight refused`)
    t.equal(preflight.headers.get('access-control-allow-origin'), null)
  }
  t.notOk(auditEvents(logs).includes('login.failed'), 'no login was attempted')
  t.same(await reference.services.store.readLoginThrottle('password:local@example.com'), { failures: 0, lockedUntil: 0 })
})

t.test('a client that sends no Origin (not a browser) is answered like any login', async (t) => {
  const { authenticate } = await startLocalAccounts(t)
  const wrong = await authenticate({ email: 'local@example.com', password: 'a guess' })
  t.same([wrong.status, await wrong.json()], [401, { error: 'Invalid email or password.' }])
  t.equal(wrong.headers.get('access-control-allow-origin'), null)
})

t.test('errors come back as {"error": text}: bad JSON, a wrong type, an unknown path', async (t) => {
  const { url } = await startLocalAccounts(t)
  const badJson = await fetch(`${url}/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json', origin: TEST_PUBLIC_URL }, body: '{"email":' })
  t.same([badJson.status, await badJson.json()], [400, { error: 'The request body is not valid JSON.' }])
  t.equal(badJson.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL, 'the page can read the error')
  const wrongType = await fetch(`${url}/authenticate`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<login/>' })
  t.same([wrongType.status, await wrongType.json()], [415, { error: 'The request body must be JSON.' }])
  const unknown = await fetch(`${url}/v2/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  t.same([unknown.status, await unknown.json()], [404, { error: 'Not found.' }])
})

t.test('posts over the per-minute limit get 429 with a readable error', async (t) => {
  const { authenticate } = await startLocalAccounts(t, { perMinute: 2 })
  for (let post = 1; post <= 2; post++) t.equal((await authenticate({})).status, 400, `post ${post} is answered`)
  const limited = await authenticate({ email: 'local@example.com', password: GOOD_PASSWORD }, { origin: TEST_PUBLIC_URL })
  t.same([limited.status, await limited.json()], [429, { error: 'Too many requests. Please wait a minute and try again.' }])
  t.equal(limited.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL, 'the page can read it')
})

t.test('an organisation\'s requirement holds at /authenticate: the login enrols an authenticator at this listener before any token', async (t) => {
  const clock = new Clock()
  const { reference, post } = await startLocalAccounts(t, { now: clock.now })
  await requireSecondFactor(reference)
  const login = await post('/authenticate', { email: 'local@example.com', password: GOOD_PASSWORD })
  t.same([login.status, Object.keys(login.body).sort()], [200, ['challenge', 'expires_in', 'second_factor']], 'a challenge, no tokens')
  t.equal(login.body.second_factor, 'enrol')
  t.equal(login.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL, 'the page reads it')
  const challenge = String(login.body.challenge)

  const bearerOnly = await post('/second-factor/enrol/start', {})
  t.equal(bearerOnly.status, 401, 'no enrolment here without the login\'s challenge')
  const started = await post('/second-factor/enrol/start', { challenge })
  t.equal(started.status, 200)
  t.equal(started.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL)
  const confirmed = await post('/second-factor/enrol/confirm', { challenge, code: codeAt(clock, String(started.body.secret)), remember_browser: true })
  t.equal(confirmed.status, 200)
  t.same(Object.keys(confirmed.body).sort(), ['auth', 'recovery_codes', 'refresh'])
  t.equal(confirmed.headers.getSetCookie().length, 0, 'no remembered browser: the calls come from another origin, without cookies')
  t.match(decodeJwt(String(confirmed.body.auth)), { scope: 'local-network', amr: ['pwd', 'otp', 'mfa'] })
})

t.test('/authenticate asks an account with a second factor for its code; the code goes to this listener, which alone takes the challenge', async (t) => {
  const clock = new Clock()
  const { reference, url, post } = await startLocalAccounts(t, { now: clock.now })
  await requireSecondFactor(reference)
  // Enrolled at the edge, during a login the organisation's requirement stopped: the account has a second factor.
  const edgeLogin = await postJson(reference.base, '/accounts/v2/login', { email: 'local@example.com', password: GOOD_PASSWORD })
  const edgeChallenge = String(edgeLogin.body.challenge)
  const { secret } = (await postJson(reference.base, '/accounts/second-factor/enrol/start', { challenge: edgeChallenge })).body as { secret: string }
  t.equal((await postJson(reference.base, '/accounts/second-factor/enrol/confirm', { challenge: edgeChallenge, code: codeAt(clock, secret) })).status, 200)
  clock.nextStep()

  const login = await post('/authenticate', { email: 'local@example.com', password: GOOD_PASSWORD })
  t.same([login.status, login.body.second_factor], [200, 'code'], 'the password alone signs nobody in here either')
  t.notOk('auth' in login.body || 'refresh' in login.body)
  const challenge = String(login.body.challenge)

  const preflight = await fetch(`${url}/second-factor/verify`, {
    method: 'OPTIONS', headers: { origin: TEST_PUBLIC_URL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' }
  })
  t.same([preflight.status, preflight.headers.get('access-control-allow-origin')], [204, TEST_PUBLIC_URL], 'the page may post the code here')

  const atTheEdge = await postJson(reference.base, '/accounts/second-factor/verify', { challenge, code: codeAt(clock, secret) })
  t.equal(atTheEdge.status, 401, 'the edge does not take a local-network login\'s challenge')
  const wrong = await post('/second-factor/verify', { challenge, code: codeAt(clock, secret) === '000000' ? '111111' : '000000' })
  t.equal(wrong.status, 401, 'a wrong code is refused')
  const right = await post('/second-factor/verify', { challenge, code: codeAt(clock, secret), remember_browser: true })
  t.equal(right.status, 200, 'the right code signs in, with the challenge the edge refused')
  t.equal(right.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL)
  t.equal(right.headers.getSetCookie().length, 0, 'and remembers no browser')
  t.match(decodeJwt(String(right.body.auth)), { scope: 'local-network', amr: ['pwd', 'otp', 'mfa'] })

  const edgeCode = await postJson(reference.base, '/accounts/v2/login', { email: 'local@example.com', password: GOOD_PASSWORD })
  clock.nextStep()
  t.equal((await post('/second-factor/verify', { challenge: String(edgeCode.body.challenge), code: codeAt(clock, secret) })).status, 401,
    'nor does this listener take the edge\'s')
})

t.test('a local-network token works only in local-network mode: its refresh token is refused at the edge, and its auth token changes no account there', async (t) => {
  const logs = logCollector()
  const { reference, post } = await startLocalAccounts(t, { logStream: logs.stream })
  const signedIn = await post('/authenticate', { email: 'local@example.com', password: GOOD_PASSWORD })
  t.equal(signedIn.status, 200)
  const { auth, refresh } = signedIn.body as { auth: string, refresh: string }
  t.equal(decodeJwt(auth).scope, 'local-network', 'the auth token says where it works')

  const refreshed = await postJson(reference.base, '/accounts/token/refresh', { refresh })
  t.same([refreshed.status, Object.keys(refreshed.body)], [401, ['error']], 'the edge refreshes no local-network token')
  t.equal(logs.lines.findLast((line) => line.audit === 'token.refused')?.reason, 'other-scope')
  const bearer = { authorization: `Bearer ${auth}` }
  const passkey = await postJson(reference.base, '/accounts/passkeys/register/options', { conditional: false }, bearer)
  t.equal(passkey.status, 401, 'no passkey is added with it')
  t.equal(logs.lines.findLast((line) => line.audit === 'passkey.register.refused')?.reason, 'not-signed-in', 'the token is no sign-in there')
  const enrolment = await postJson(reference.base, '/accounts/second-factor/enrol/start', {}, bearer)
  t.equal(enrolment.status, 401, 'no authenticator is enrolled with it')
  t.equal(await reference.services.store.findSecondFactor(decodeJwt(auth).sub!), null, 'nothing was started either')

  const own = await post('/token/refresh', { refresh })
  t.equal(own.status, 200, 'this listener refreshes it, unspent by the edge\'s refusal')
  t.equal(own.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL)
  t.equal(decodeJwt(String(own.body.auth)).scope, 'local-network', 'and the new pair keeps its scope')

  const edgeTokens = await loginTokens(reference.base, 'local@example.com')
  t.equal(decodeJwt(edgeTokens.auth).scope, undefined, 'the edge\'s tokens name no scope')
  t.equal((await post('/token/refresh', { refresh: edgeTokens.refresh })).status, 401, 'and this listener refreshes none of them')
  t.equal((await postJson(reference.base, '/accounts/token/refresh', { refresh: edgeTokens.refresh })).status, 200, 'which the edge still does')
})

t.test('npm run local-accounts serves /authenticate on LOCAL_ACCOUNTS_PORT from DATA_DIR, and stops on SIGTERM', async (t) => {
  const dataDir = temporaryDataDir(t)
  const store = new SqliteAccountStore(databaseFile(dataDir))
  await store.createAccount({ email: 'lan@example.com', firstName: null, lastName: null, passwordHash: await hashPassword(GOOD_PASSWORD), googleSubject: null })
  await store.close()
  const port = await freeLoopbackPort()
  const child = spawn(process.execPath, [REFERENCE_MAIN, '--local-accounts'], {
    // Never the public range API (tests run offline).
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOCAL_ACCOUNTS_PORT: String(port), LOCAL_ACCOUNTS_HOST: '127.0.0.1', PUBLIC_URL: TEST_PUBLIC_URL, BREACHED_PASSWORDS: 'off' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = once(child, 'exit')
  while (!output.includes(`listening at http://127.0.0.1:${port}`)) {
    if (child.exitCode !== null) throw new Error(`exited early: ${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const response = await fetch(`http://127.0.0.1:${port}/authenticate`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: TEST_PUBLIC_URL }, body: JSON.stringify({ email: 'lan@example.com', password: GOOD_PASSWORD })
  })
  t.equal(response.status, 200)
  t.equal(response.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL)
  child.kill('SIGTERM')
  const [code] = await exited
  t.equal(code, 0)
  t.notOk(output.includes(GOOD_PASSWORD), 'the password is not in the log')
})
