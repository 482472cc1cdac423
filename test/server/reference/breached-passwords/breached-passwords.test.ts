import { Secret, TOTP } from 'otpauth'
import t, { type Test } from 'tap'
import { hashPassword, scryptParametersForCost } from '../../../../server/reference/passwords/passwords.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, TEST_PASSWORD_HASH_COST, type LogCollector, type Reference } from '../../../fixtures/servers/reference.js'
import { outboxEmails, resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { sha1Hex, startRangeServer, type RangeServer } from '../../../fixtures/breached-passwords/range-server.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/** Not in the offline list nor built on it: only the (local) breach corpus knows it. */
const BREACHED_PASSWORD = 'velvet otter parliament 1987'
const BREACHED_TEXT = 'This password has appeared in a data breach, so attackers try it. Please choose another.'

const ownRange = new Map<string, RangeServer>()

interface Setup {
  readonly reference: Reference
  readonly range: RangeServer
  readonly logs: LogCollector
}

async function setUp (t: Test, env: Record<string, string> = {}, now?: () => number): Promise<Setup> {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream, env, ...(now === undefined ? {} : { now }) })
  // The fixture's corpus, or the test's own (then given as BREACHED_PASSWORDS_URL).
  const range = reference.rangeServer ?? ownRange.get(env.BREACHED_PASSWORDS_URL!)!
  range.breach(BREACHED_PASSWORD, 3_861)
  return { reference, range, logs }
}

/** An account whose password predates the check (or whose password was breached since it was chosen). */
async function accountWithPassword (reference: Reference, email: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password, scryptParametersForCost(Number(TEST_PASSWORD_HASH_COST)))
  const created = await reference.services.store.createAccount({ email, firstName: null, lastName: null, passwordHash, googleSubject: null })
  if (!('created' in created)) throw new Error('the account could not be made')
}

/** The service's counter values for the breach checks and range calls, from its Prometheus text. */
async function breachFigures (reference: Reference): Promise<Record<string, number>> {
  const text = await reference.services.metrics.text()
  return Object.fromEntries([...text.matchAll(/^threshold_reference_breached_password_(\w+)\{(.+)\} (\d+)$/gm)]
    .map((match) => [`${match[1]}{${match[2]}}`, Number(match[3])]))
}

/** Nothing in the log that narrows the password: not it, not its SHA-1, not the five digits sent. */
function assertNoSecrets (t: Test, logs: LogCollector, password: string): void {
  const text = logs.text()
  const hash = sha1Hex(password)
  t.notOk(text.includes(password), 'the log holds no password')
  t.notOk(text.toUpperCase().includes(hash.slice(5)), 'nor its SHA-1 suffix')
  t.notOk(text.toUpperCase().includes(hash.slice(0, 5)), 'nor the prefix sent')
}

t.test('registration with a breached password answers 400 saying why, creates nothing, and is audited', async (t) => {
  const { reference, logs } = await setUp(t)
  const answer = await postJson(reference.base, '/accounts/register', { email: 'bea@example.com', password: BREACHED_PASSWORD, confirm_password: BREACHED_PASSWORD })
  t.same([answer.status, answer.body], [400, { error: BREACHED_TEXT }])
  t.equal(await reference.services.store.findAccountByEmail('bea@example.com'), null)
  t.match(logs.lines.find((line) => line.audit === 'register.refused'), { reason: 'breached' })
  const german = await postJson(reference.base, '/accounts/register', { email: 'bea@example.com', password: BREACHED_PASSWORD, confirm_password: BREACHED_PASSWORD }, { 'accept-language': 'de' })
  t.same(german.body, { error: 'Dieses Passwort ist in einem Datenleck aufgetaucht, daher probieren Angreifer es aus. Bitte wählen Sie ein anderes.' })
  t.same((await breachFigures(reference))['checks_total{purpose="new_password",outcome="breached"}'], 2)
  assertNoSecrets(t, logs, BREACHED_PASSWORD)
})

t.test('a reset completed with a breached password is refused, and the link still works for another password', async (t) => {
  const { reference } = await setUp(t)
  await registerAccount(reference.base, 'rosa@example.com')
  await postJson(reference.base, '/accounts/resetPasswordRequest', { email: 'rosa@example.com' })
  const { token } = resetLinkOf(await waitForEmail(reference.dataDir, 1, 'reset'))
  const refused = await postJson(reference.base, '/accounts/resetPassword', { token, password: BREACHED_PASSWORD, confirm_password: BREACHED_PASSWORD })
  t.same([refused.status, refused.body], [400, { error: BREACHED_TEXT }])
  const done = await postJson(reference.base, '/accounts/resetPassword', { token, password: 'a new and unleaked passphrase', confirm_password: 'a new and unleaked passphrase' })
  t.equal(done.status, 200)
})

t.test('a login with a breached password signs in, flagged password_breached, and is audited without the password', async (t) => {
  const { reference, logs } = await setUp(t)
  await accountWithPassword(reference, 'leo@example.com', BREACHED_PASSWORD)
  const answer = await postLogin(reference.base, 'leo@example.com', BREACHED_PASSWORD)
  t.equal(answer.status, 200)
  t.same(Object.keys(answer.body).sort(), ['auth', 'password_breached', 'refresh'])
  t.equal(answer.body.password_breached, true)
  const audit = await logs.waitFor((line) => line.audit === 'login.password-breached')
  t.ok(typeof audit.accountId === 'string')
  const own = Object.keys(audit).filter((key) => !['level', 'time', 'pid', 'hostname', 'reqId', 'msg'].includes(key)).sort()
  t.same(own, ['accountId', 'audit', 'clientAddress'], 'the account and the address: no count (with the corpus, a count can name the password), hash or prefix')
  t.same(auditEvents(logs).filter((event) => event.startsWith('login.')), ['login.succeeded', 'login.password-breached'])
  assertNoSecrets(t, logs, BREACHED_PASSWORD)
  t.equal((await breachFigures(reference))['checks_total{purpose="login",outcome="breached"}'], 1)
})

t.test('a login with a clean password has no flag and no audit line', async (t) => {
  const { reference, range, logs } = await setUp(t)
  await registerAccount(reference.base, 'cleo@example.com')
  const answer = await postLogin(reference.base, 'cleo@example.com', GOOD_PASSWORD)
  t.same(Object.keys(answer.body).sort(), ['auth', 'refresh'])
  t.notOk(auditEvents(logs).includes('login.password-breached'))
  t.equal(range.requests.length, 1, 'registration and login share the cached range answer')
})

t.test('a wrong password makes no range call: guesses are never sent, nor counted', async (t) => {
  const { reference, range } = await setUp(t)
  await accountWithPassword(reference, 'wes@example.com', GOOD_PASSWORD)
  for (const guess of [BREACHED_PASSWORD, 'another wrong guess', 'and a third one']) {
    t.equal((await postLogin(reference.base, 'wes@example.com', guess)).status, 401)
  }
  t.equal((await postLogin(reference.base, 'nobody@example.com', BREACHED_PASSWORD)).status, 401, 'nor for an unknown address')
  t.same(range.requests, [])
  const figures = await breachFigures(reference)
  t.equal(Object.entries(figures).filter(([name]) => name.startsWith('checks_total')).reduce((sum, [, value]) => sum + value, 0), 0)
})

t.test('a burst of logins with one password makes one range call (cache and shared lookups)', async (t) => {
  const { reference, range } = await setUp(t)
  await accountWithPassword(reference, 'burst@example.com', BREACHED_PASSWORD)
  const answers = await Promise.all(Array.from({ length: 8 }, () => postLogin(reference.base, 'burst@example.com', BREACHED_PASSWORD)))
  for (let i = 0; i < 4; i++) answers.push(await postLogin(reference.base, 'burst@example.com', BREACHED_PASSWORD))
  t.ok(answers.every((answer) => answer.status === 200 && answer.body.password_breached === true), 'every one flagged')
  t.equal(range.requests.length, 1)
  const figures = await breachFigures(reference)
  t.equal(figures['checks_total{purpose="login",outcome="breached"}'], 12)
  t.equal(figures['range_calls_total{result="ok"}'], 1)
})

const outages: Array<[string, (range: RangeServer) => Promise<void> | void, string, RegExp]> = [
  ['down', async (range) => { await range.down() }, 'unreachable', /corpus could not be reached: the password was let through unchecked$/],
  ['answering garbage', (range) => { range.mode = 'html' }, 'malformed', /corpus answered with something that is not a range answer:/],
  ['answering 503', (range) => { range.mode = 'status' }, 'bad_status', /corpus answered with an error status:/],
  ['answering without end', (range) => { range.mode = 'huge' }, 'too_large', /corpus answered with more than a range answer holds:/],
  ['too slow', (range) => { range.mode = 'hang' }, 'timeout', /corpus did not answer in time:/]
]

for (const [name, breakIt, reason, said] of outages) {
  t.test(`with the range service ${name}, a new password and a login pass (fail open), logged without secrets and counted`, async (t) => {
    const { reference, range, logs } = await setUp(t, { BREACHED_PASSWORDS_TIMEOUT_MS: '300' })
    await breakIt(range)
    const started = performance.now()
    const registered = await postJson(reference.base, '/accounts/register', { email: 'ola@example.com', password: BREACHED_PASSWORD, confirm_password: BREACHED_PASSWORD })
    t.equal(registered.status, 200, 'registered: the corpus could not say')
    const warning = await logs.waitFor((line) => line.level === 40 && /breached-password corpus/.test(String(line.msg)))
    t.match(warning, { reason, purpose: 'new_password', failure: 'open', msg: said }, 'the message says what happened, as the reason does')
    const signedIn = await postLogin(reference.base, 'ola@example.com', BREACHED_PASSWORD)
    t.equal(signedIn.status, 200)
    t.notOk('password_breached' in signedIn.body, 'no flag: nothing is known')
    t.ok(performance.now() - started < 5000, 'each waited at most the timeout')
    assertNoSecrets(t, logs, BREACHED_PASSWORD)
    const figures = await breachFigures(reference)
    t.equal(figures[`range_calls_total{result="${reason}"}`], 1, 'one failed call: the login came within the pause after it')
    t.equal(figures['checks_total{purpose="new_password",outcome="unavailable"}'], 1)
    t.equal(figures['checks_total{purpose="login",outcome="unavailable"}'], 1)
  })
}

t.test('a slow corpus adds at most BREACHED_PASSWORDS_TIMEOUT_MS to a login', async (t) => {
  const { reference, range } = await setUp(t, { BREACHED_PASSWORDS_TIMEOUT_MS: '500' })
  await accountWithPassword(reference, 'sam@example.com', GOOD_PASSWORD)
  await postLogin(reference.base, 'sam@example.com', GOOD_PASSWORD)
  const quick = performance.now()
  await postLogin(reference.base, 'sam@example.com', GOOD_PASSWORD)
  const cachedMs = performance.now() - quick
  range.mode = 'hang'
  await accountWithPassword(reference, 'tia@example.com', 'a different passphrase, not cached')
  const slow = performance.now()
  t.equal((await postLogin(reference.base, 'tia@example.com', 'a different passphrase, not cached')).status, 200)
  const slowMs = performance.now() - slow
  t.ok(slowMs < cachedMs + 500 + 700, `a login with a hanging corpus took ${Math.round(slowMs)} ms, one with a cached answer ${Math.round(cachedMs)} ms`)
})

t.test('BREACHED_PASSWORDS_FAILURE=closed refuses a new password while the corpus is unavailable, but never a login', async (t) => {
  const own = await startRangeServer(t)
  ownRange.set(own.url, own)
  // A time limit a loaded machine cannot miss for the registration that must pass: the refusal below comes from a status, not a timeout.
  const { reference, logs } = await setUp(t, { BREACHED_PASSWORDS_URL: own.url, BREACHED_PASSWORDS_FAILURE: 'closed', BREACHED_PASSWORDS_TIMEOUT_MS: '5000' })
  await registerAccount(reference.base, 'cara@example.com')
  own.mode = 'status'
  const refused = await postJson(reference.base, '/accounts/register', { email: 'dan@example.com', password: GOOD_PASSWORD + '!', confirm_password: GOOD_PASSWORD + '!' })
  t.same([refused.status, refused.body], [503, { error: 'Your new password cannot be checked right now. Please try again in a few minutes.' }])
  t.equal(refused.headers.get('retry-after'), '60')
  t.equal(await reference.services.store.findAccountByEmail('dan@example.com'), null)
  t.match(logs.lines.find((line) => line.audit === 'register.refused' && line.reason !== 'invalid'), { reason: 'breach-check-unavailable' })
  t.equal((await postLogin(reference.base, 'cara@example.com', GOOD_PASSWORD)).status, 200, 'a login is never refused for it')
  assertNoSecrets(t, logs, GOOD_PASSWORD + '!')
})

t.test('BREACHED_PASSWORDS=off asks no corpus: the offline rules alone', async (t) => {
  const own = await startRangeServer(t)
  own.breach(BREACHED_PASSWORD)
  const reference = await startReference(t, { env: { BREACHED_PASSWORDS: 'off', BREACHED_PASSWORDS_URL: own.url } })
  await registerAccount(reference.base, 'air@example.com', BREACHED_PASSWORD)
  t.equal((await postLogin(reference.base, 'air@example.com', BREACHED_PASSWORD)).body.password_breached, undefined)
  t.same((await postJson(reference.base, '/accounts/register', { email: 'gap@example.com', password: 'Summer2024!', confirm_password: 'Summer2024!' })).status, 400, 'the offline list still applies')
  t.same(own.requests, [])
})

t.test('PASSWORD_MIN_LENGTH raises the minimum at registration and reset', async (t) => {
  const { reference } = await setUp(t, { PASSWORD_MIN_LENGTH: '15' })
  const short = await postJson(reference.base, '/accounts/register', { email: 'min@example.com', password: 'xq7mzr2kvb4wpt', confirm_password: 'xq7mzr2kvb4wpt' })
  t.same([short.status, short.body], [400, { error: 'Your password must have at least 15 characters.' }])
  t.equal((await postJson(reference.base, '/accounts/register', { email: 'min@example.com', password: 'xq7mzr2kvb4wptn', confirm_password: 'xq7mzr2kvb4wptn' })).status, 200)
})

/** A clock the service reads, moved by whole 30-second steps so that each code is a new one. */
class Clock {
  value = Math.floor(Date.now() / 30_000) * 30_000 + 1000
  now = (): number => this.value
}

t.test('with a second factor, the flag is carried through the code step to the answer with the tokens', async (t) => {
  const clock = new Clock()
  const { reference, logs } = await setUp(t, {}, clock.now)
  await accountWithPassword(reference, 'max@example.com', BREACHED_PASSWORD)
  const call = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(reference.base, `/accounts/${path}`, body, headers)
  // Enrolled in the browser that signed in: the sign-in is its fresh proof.
  const owner = new ServiceBrowser(reference.base)
  const bearer = await owner.bearerAfterSignIn('max@example.com', BREACHED_PASSWORD)
  const secret = String((await owner.post('second-factor/enrol/start', {}, bearer)).body.secret)
  const code = (): string => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock.value })
  t.equal((await owner.post('second-factor/enrol/confirm', { code: code() }, bearer)).status, 200)
  clock.value += 30_000

  const challenged = await postLogin(reference.base, 'max@example.com', BREACHED_PASSWORD)
  t.equal(challenged.body.second_factor, 'code')
  t.notOk('password_breached' in challenged.body, 'not on the challenge: the password step is not the sign-in yet')
  const verified = await call('second-factor/verify', { challenge: challenged.body.challenge, code: code() })
  t.equal(verified.status, 200)
  t.equal(verified.body.password_breached, true)
  t.ok(typeof verified.body.auth === 'string')
  t.equal(auditEvents(logs).filter((event) => event === 'login.password-breached').length, 2, 'audited at each password step')
})

t.test('a breached login also emails the owner, in the visitor\'s language, at most once in 30 days', async (t) => {
  let now = Date.now()
  const { reference, logs } = await setUp(t, {}, () => now)
  await accountWithPassword(reference, 'lea@example.com', BREACHED_PASSWORD)
  /** The breach emails in the outbox: the only ones linking the page's "forgot password" view. */
  const breachEmails = async () => (await outboxEmails(reference.dataDir)).filter((email) => email.decoded.includes('view=resetPassword'))
  const settled = async (count: number) => {
    for (let tries = 0; tries < 100 && (await breachEmails()).length < count; tries++) await new Promise((resolve) => setTimeout(resolve, 50))
    return breachEmails()
  }

  t.equal((await postJson(reference.base, '/accounts/v2/login', { email: 'lea@example.com', password: BREACHED_PASSWORD }, { 'accept-language': 'de' })).status, 200)
  const [email] = await settled(1)
  t.ok(email, 'one email')
  t.match(email!.decoded, 'Bitte wählen Sie ein neues Passwort', 'in German, as the sign-in was')
  t.match(email!.decoded, /\/\?view=resetPassword&(amp;)?ui_locales=de/, 'leading to the page\'s "forgot password" view, in German')
  t.notMatch(email!.decoded, /token=/, 'with no live token: nobody asked for one')
  await logs.waitFor((line) => line.audit === 'password.breach-notice-sent')
  assertNoSecrets(t, logs, BREACHED_PASSWORD)

  t.equal((await postLogin(reference.base, 'lea@example.com', BREACHED_PASSWORD)).status, 200)
  now += 29 * 24 * 60 * 60 * 1000
  t.equal((await postLogin(reference.base, 'lea@example.com', BREACHED_PASSWORD)).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal((await breachEmails()).length, 1, 'no second email within 30 days: the page says it at every login')
  now += 2 * 24 * 60 * 60 * 1000
  t.equal((await postLogin(reference.base, 'lea@example.com', BREACHED_PASSWORD)).status, 200)
  t.equal((await settled(2)).length, 2, 'a month on, with the password unchanged, a reminder')
})

t.test('a clean login sends no breach email', async (t) => {
  const { reference } = await setUp(t)
  await registerAccount(reference.base, 'cleo@example.com')
  t.equal((await postLogin(reference.base, 'cleo@example.com', GOOD_PASSWORD)).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.notOk((await outboxEmails(reference.dataDir)).some((email) => email.decoded.includes('view=resetPassword')))
})
