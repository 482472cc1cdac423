import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { occupyHashGate } from '../../../fixtures/passwords/hash-gate.js'
import { FREE_ACCOUNT_FAILURES, FREE_LOGIN_FAILURES } from '../../../../server/reference/sign-in/login-throttles.js'
import { REFERENCE_METRICS_PATH } from '../../../../server/reference/metrics/metrics-route.js'
import { buildLocalAccountsServer } from '../../../../server/reference/server.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { GOOD_PASSWORD, startReference, TEST_PUBLIC_URL, type Reference } from '../../../fixtures/servers/reference.js'
import { outboxFiles } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { OIDC_DOMAIN, startSsoStack } from '../../../fixtures/sso/sso-service.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

// The reference service's own figures (password hashing time,
// lockouts, emails sent or failed, sign-ins), read as the edge reads them:
// from GET /metrics on the service's loopback listener, with the edge's token.

const TOKEN = 'test-metrics-token-0123456789'
const OWNER = 'metrics.owner@example.com'

/** The service's metrics text, fetched as the edge fetches it. */
async function scrape (reference: Reference, token: string | null = TOKEN): Promise<{ status: number, type: string | null, text: string }> {
  const response = await fetch(`${reference.url}${REFERENCE_METRICS_PATH}`, { headers: { ...reference.edgeHeaders, ...(token === null ? {} : { authorization: `Bearer ${token}` }) } })
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() }
}

/** The value of one series (`name{labels}` exactly as exposed; labels in the order they were declared), or NaN when absent. */
function value (text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1))
}

const signIns = (text: string, method: string, outcome: string): number =>
  value(text, `threshold_reference_sign_ins_total{method="${method}",outcome="${outcome}"}`)
const lockouts = (text: string, scope: string): number => value(text, `threshold_reference_lockouts_total{scope="${scope}"}`)
const emails = (text: string, kind: string, outcome: string): number =>
  value(text, `threshold_reference_emails_total{kind="${kind}",outcome="${outcome}"}`)
const hashCount = (text: string, operation: string): number =>
  value(text, `threshold_reference_password_hash_duration_seconds_count{operation="${operation}"}`)

/** Scrapes until `ready` holds (emails go out after the answer), for at most 5 s. */
async function scrapeUntil (reference: Reference, ready: (text: string) => boolean): Promise<string> {
  for (const deadline = Date.now() + 5000; ;) {
    const { text } = await scrape(reference)
    if (ready(text) || Date.now() > deadline) return text
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

function loginFrom (reference: Reference, address: string, password: string) {
  return postLogin(reference.base, OWNER, password, { headers: { 'x-forwarded-for': address } })
}

t.test('a registration, a sign-in and guesses until a lock are counted, and no address or token is in the text', async (t) => {
  const reference = await startReference(t, { metricsToken: TOKEN, edgeEnv: { TRUST_PROXY: 'loopback' } })
  const before = (await scrape(reference)).text
  t.equal(signIns(before, 'password', 'success'), 0, 'every series is there from the start, at 0')
  t.equal(lockouts(before, 'account_slowdown'), 0)
  t.equal(emails(before, 'password_reset', 'failed'), 0)

  await registerAccount(reference.base, OWNER)
  const signedIn = await loginFrom(reference, '198.51.100.9', GOOD_PASSWORD)
  t.equal(signedIn.status, 200)

  // One address range guesses until its pair is locked, then is refused at once.
  const statuses: number[] = []
  for (let guess = 1; guess <= FREE_LOGIN_FAILURES + 2; guess++) statuses.push((await loginFrom(reference, '203.0.113.1', `guess ${guess}`)).status)
  t.same(statuses, [401, 401, 401, 401, 401, 429], 'the fifth failure sets the lock the sixth meets')
  let text = (await scrape(reference)).text
  t.equal(signIns(text, 'password', 'success'), 1)
  t.equal(signIns(text, 'password', 'refused'), FREE_LOGIN_FAILURES + 2, 'wrong passwords and the locked attempt are refusals')
  t.equal(lockouts(text, 'address'), 1, 'one pair locked')
  t.equal(lockouts(text, 'account_slowdown'), 0, 'five failures do not slow the account yet')
  t.equal(hashCount(text, 'hash'), 2, 'the registration\'s hash and the decoy hash made at the start')
  t.equal(hashCount(text, 'verify'), 1 + FREE_LOGIN_FAILURES + 1, 'the sign-in and each failed guess checked a password; the locked attempt did not')
  t.ok(value(text, 'threshold_reference_password_hash_duration_seconds_sum{operation="verify"}') > 0, 'with their time')

  // Two more ranges: their failures together pass the account's free ones and start its slow-down.
  for (let guess = 1; guess <= FREE_LOGIN_FAILURES + 1; guess++) await loginFrom(reference, '203.0.113.2', `guess ${guess}`)
  const failedSoFar = 2 * (FREE_LOGIN_FAILURES + 1)
  for (let guess = 1; guess <= FREE_ACCOUNT_FAILURES + 1 - failedSoFar; guess++) await loginFrom(reference, '203.0.113.3', `guess ${guess}`)
  text = (await scrape(reference)).text
  t.equal(lockouts(text, 'address'), 2, 'the second range\'s pair locked too')
  t.equal(lockouts(text, 'account_slowdown'), 1, `the ${FREE_ACCOUNT_FAILURES + 1}th failure from everywhere started the slow-down, counted once`)

  // Emails go out after the answers: the registration's verification, and the new-browser notice when there was one.
  text = await scrapeUntil(reference, (current) => emails(current, 'verify_email', 'sent') === 1)
  t.equal(emails(text, 'verify_email', 'sent'), 1)
  await new Promise((resolve) => setTimeout(resolve, 200))
  text = (await scrape(reference)).text
  const sent = ['verify_email', 'password_reset', 'new_browser', 'registration_attempt', 'account_claimed', 'breached_password', 'account_change', 'other']
    .reduce((sum, kind) => sum + emails(text, kind, 'sent'), 0)
  t.equal(sent, (await outboxFiles(reference.dataDir)).length, 'as many sent as the outbox holds')

  t.notOk(text.includes(OWNER) || text.includes('@'), 'no address')
  t.notOk(text.includes(String(signedIn.body.auth)) || text.includes(String(signedIn.body.refresh)), 'no token')
  t.notOk(text.includes('203.0.113') || text.includes('198.51.100'), 'no client address')
  t.notOk(text.includes(TOKEN), 'not the metrics token either')
})

t.test('second-factor and passkey sign-ins are counted by method, and their locks by scope', async (t) => {
  // The service's clock, moved by whole 30-second steps so that each authenticator code is a new one.
  let clock = Math.floor(Date.now() / 30_000) * 30_000 + 1000
  const reference = await startReference(t, { metricsToken: TOKEN, now: () => clock })
  const call = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(reference.base, `/accounts/${path}`, body, headers)
  const login = () => call('v2/login', { email: OWNER, password: GOOD_PASSWORD })

  await registerAccount(reference.base, OWNER)
  // Enrolled in the browser that signed in: the sign-in is its fresh proof.
  const owner = new ServiceBrowser(reference.base)
  const bearer = await owner.bearerAfterSignIn(OWNER)
  const secret = String((await owner.post('second-factor/enrol/start', {}, bearer)).body.secret)
  const codeNow = () => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock })
  const enrolled = await owner.post('second-factor/enrol/confirm', { code: codeNow() }, bearer)
  t.equal(enrolled.status, 200)
  const recoveryCodes = enrolled.body.recovery_codes as string[]
  clock += 30_000

  const byCode = await login()
  t.match(byCode.body, { second_factor: 'code' })
  const browser = new PasskeyBrowser(reference.base)
  const verified = await browser.post('second-factor/verify', { challenge: byCode.body.challenge, code: codeNow() })
  t.equal(verified.status, 200)
  const byRecoveryCode = await login()
  t.equal((await call('second-factor/verify', { challenge: byRecoveryCode.body.challenge, recovery_code: recoveryCodes[0] })).status, 200)
  const guessed = await login()
  const wrong = codeNow() === '999999' ? '999998' : '999999'
  const statuses: number[] = []
  for (let guess = 1; guess <= FREE_LOGIN_FAILURES + 1; guess++) statuses.push((await call('second-factor/verify', { challenge: guessed.body.challenge, code: wrong })).status)
  t.same(statuses, [401, 401, 401, 401, 401], 'the fifth wrong code sets the lock')

  const authenticator = new SoftwareAuthenticator(TEST_PUBLIC_URL, { countsSignatures: false })
  const auth = String(verified.body.auth)
  const creation = await browser.registerOptions(auth)
  t.equal((await browser.post('passkeys/register', { credential: authenticator.create(creation) }, { authorization: `Bearer ${auth}` })).status, 200)
  const passkeyLogin = async (credentialId?: string) => {
    const options = await browser.loginOptions()
    return await browser.post('passkeys/login', { credential: authenticator.get(options, credentialId === undefined ? {} : { credentialId }) })
  }
  t.equal((await passkeyLogin()).status, 200)
  for (let attempt = 1; attempt <= FREE_LOGIN_FAILURES + 1; attempt++) t.equal((await passkeyLogin(`bWFkZS11cC0${attempt}`)).status, 401)
  t.equal((await passkeyLogin()).status, 429, 'the range is locked')

  const text = (await scrape(reference)).text
  t.equal(signIns(text, 'password', 'success'), 1, 'the sign-in before enrolment')
  t.equal(signIns(text, 'password', 'second_factor_required'), 3, 'each password sign-in after it asked for a code')
  t.equal(signIns(text, 'second_factor', 'success'), 1)
  t.equal(signIns(text, 'recovery_code', 'success'), 1)
  t.equal(signIns(text, 'second_factor', 'refused'), FREE_LOGIN_FAILURES + 1)
  t.equal(lockouts(text, 'second_factor'), 1)
  t.equal(signIns(text, 'passkey', 'success'), 1)
  t.equal(signIns(text, 'passkey', 'refused'), FREE_LOGIN_FAILURES + 2)
  t.equal(lockouts(text, 'passkey'), 1)
  t.equal(lockouts(text, 'address'), 0, 'no password lock')
  t.notOk(text.includes(secret) || text.includes(recoveryCodes[0]!) || text.includes('@'), 'no secret, code or address')
})

t.test('Google sign-ins are counted as google', async (t) => {
  const google = await startGoogleStandIn(t)
  const reference = await startReference(t, { metricsToken: TOKEN, env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  const withToken = async (claims: { email?: string, sub?: string, audience?: string }) =>
    ({ authorization: `Bearer ${await google.credential(claims)}` })
  const identity = { email: OWNER, sub: 'metrics-google-subject' }
  t.equal((await postJson(reference.base, '/accounts/auth/register', { register_method: 'GOOGLE' }, await withToken(identity))).status, 200)
  t.equal((await postJson(reference.base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, await withToken(identity))).status, 200)
  const foreign = await postJson(reference.base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' },
    await withToken({ ...identity, audience: 'another-client.apps.googleusercontent.com' }))
  t.equal(foreign.status, 401)
  const text = (await scrape(reference)).text
  t.equal(signIns(text, 'google', 'success'), 1, 'the registration is no sign-in; the login is')
  t.equal(signIns(text, 'google', 'refused'), 1)
  t.equal(signIns(text, 'password', 'success') + signIns(text, 'password', 'refused'), 0)
})

t.test('single sign-on completions are counted as sso; the provider\'s leg is not a sign-in', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t)
  stack.oidc.users.set('ann', { email: `ann@${OIDC_DOMAIN}`, email_verified: true })
  const browser = new TestBrowser()
  const landing = await stack.oidcRoundTrip(browser, 'ann')
  let text = await stack.services.metrics.text()
  t.equal(signIns(text, 'sso', 'success') + signIns(text, 'sso', 'refused'), 0, 'nothing counted before the page completes')
  t.equal((await stack.completeLogin(browser, landing)).status, 200)
  t.equal((await stack.completeLogin(browser, landing)).status, 401, 'the id works once')
  text = await stack.services.metrics.text()
  t.equal(signIns(text, 'sso', 'success'), 1)
  t.equal(signIns(text, 'sso', 'refused'), 1)
  t.notOk(text.includes(OIDC_DOMAIN), 'no address')
})

t.test('local-network mode\'s /authenticate counts as a password sign-in of the same service', async (t) => {
  const reference = await startReference(t, { metricsToken: TOKEN })
  await registerAccount(reference.base, OWNER)
  const local = await buildLocalAccountsServer({ services: reference.services, logger: false, perMinute: 1000 })
  t.teardown(() => local.close())
  const authenticate = (password: string) => local.inject({ method: 'POST', url: '/authenticate', payload: { email: OWNER, password } })
  t.equal((await authenticate(GOOD_PASSWORD)).statusCode, 200)
  t.equal((await authenticate('not the password')).statusCode, 401)
  const text = (await scrape(reference)).text
  t.equal(signIns(text, 'password', 'success'), 1)
  t.equal(signIns(text, 'password', 'refused'), 1)
})

t.test('an email SMTP cannot take is counted as failed, by kind', async (t) => {
  // Port 9 ("discard") is closed here: the connection is refused.
  const reference = await startReference(t, { metricsToken: TOKEN, env: { SMTP_URL: 'smtp://127.0.0.1:9' } })
  await registerAccount(reference.base, OWNER)
  t.equal((await postJson(reference.base, '/accounts/resetPasswordRequest', { email: OWNER })).status, 200)
  const text = await scrapeUntil(reference, (current) =>
    emails(current, 'verify_email', 'failed') === 1 && emails(current, 'password_reset', 'failed') === 1)
  t.equal(emails(text, 'verify_email', 'failed'), 1)
  t.equal(emails(text, 'password_reset', 'failed'), 1)
  t.equal(emails(text, 'verify_email', 'sent'), 0)
})

t.test('a login the full hash gate refuses counts as a gate refusal and a sign-in error', async (t) => {
  const reference = await startReference(t, { metricsToken: TOKEN })
  await registerAccount(reference.base, OWNER)
  const { concurrency, maxQueue } = reference.services.hashGate.options
  const burst = occupyHashGate(reference.services.hashGate, concurrency + maxQueue)
  const before = (await scrape(reference)).text
  const answer = await postJson(reference.base, '/accounts/v2/login', { email: OWNER, password: GOOD_PASSWORD })
  t.equal(answer.status, 503)
  const after = (await scrape(reference)).text
  await burst.release()
  t.equal(value(after, 'threshold_reference_hash_gate_refusals_total') - value(before, 'threshold_reference_hash_gate_refusals_total'), 1)
  t.equal(signIns(after, 'password', 'error'), 1)
  t.equal(hashCount(after, 'verify'), hashCount(before, 'verify'), 'no password was checked')
})

t.test('the process\'s own figures are there, prefixed so that they never meet the edge\'s', async (t) => {
  const reference = await startReference(t, { metricsToken: TOKEN })
  const { status, type, text } = await scrape(reference)
  t.equal(status, 200)
  t.match(type, /^text\/plain; version=0\.0\.4/)
  t.match(text, /^threshold_reference_process_cpu_user_seconds_total \d/m)
  t.match(text, /^threshold_reference_nodejs_eventloop_lag_seconds \d/m)
  const names = new Set(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => /^[a-z_]+/.exec(line)![0]))
  t.same([...names].filter((name) => !name.startsWith('threshold_reference_')), [], 'every name is prefixed')
})

t.test('the metrics are the edge\'s only: never proxied, refused without its token, not served without one', async (t) => {
  t.notOk(REFERENCE_ACCOUNTS_ROUTES.some((route) => route.path.includes('metrics')), 'not a path the edge proxies')
  const reference = await startReference(t, { metricsToken: TOKEN })
  const proxied = await fetch(`${reference.base}/accounts/metrics`)
  t.equal(proxied.status, 404, 'through the edge: not found')
  t.notMatch(await proxied.text(), /threshold_reference_/)
  t.equal((await scrape(reference, null)).status, 401, 'no token')
  const wrong = await scrape(reference, 'not-the-token')
  t.equal(wrong.status, 401, 'a wrong token')
  t.notMatch(wrong.text, /threshold_reference_/)
  t.equal((await scrape(reference, `${TOKEN}x`)).status, 401, 'a longer one')

  const alone = await startReference(t)
  t.equal((await scrape(alone)).status, 404, 'a service started without a token (npm run local-accounts) serves no metrics')
})

t.test('the breached-password counters exist from the start at 0, and count checks and range calls apart', async (t) => {
  const reference = await startReference(t, { metricsToken: TOKEN })
  const checks = (text: string, purpose: string, outcome: string): number =>
    value(text, `threshold_reference_breached_password_checks_total{purpose="${purpose}",outcome="${outcome}"}`)
  const calls = (text: string, result: string): number => value(text, `threshold_reference_breached_password_range_calls_total{result="${result}"}`)
  const before = (await scrape(reference)).text
  for (const purpose of ['new_password', 'login']) for (const outcome of ['breached', 'clean', 'unavailable']) t.equal(checks(before, purpose, outcome), 0, `${purpose} ${outcome}`)
  for (const result of ['ok', 'timeout', 'unreachable', 'bad_status', 'malformed', 'too_large']) t.equal(calls(before, result), 0, result)

  await registerAccount(reference.base, OWNER)
  t.equal((await postJson(reference.base, '/accounts/v2/login', { email: OWNER, password: GOOD_PASSWORD })).status, 200)
  const after = (await scrape(reference)).text
  t.equal(checks(after, 'new_password', 'clean'), 1)
  t.equal(checks(after, 'login', 'clean'), 1)
  t.equal(calls(after, 'ok'), 1, 'the login\'s check was answered from the cache')
  t.notOk(/[0-9A-F]{5}/.test(after.split('\n').filter((line) => line.includes('breached_password')).join('\n').replace(/threshold_\w+/g, '')), 'no prefix in a label')
})
