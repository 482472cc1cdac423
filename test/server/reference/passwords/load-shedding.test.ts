import t from 'tap'
import englishAnswers from '../../../../server/reference/languages/en.json' with { type: 'json' }
import { occupyHashGate } from '../../../fixtures/passwords/hash-gate.js'
import { accountThrottleKey } from '../../../../server/reference/sign-in/login-throttles.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

// Without the hash gate, a burst of logins kept the service hashing for
// requests the edge had abandoned, and every login timed out. The burst
// itself is measured by `npm run load:burst` (docs/performance.md); these
// tests fill the gate as a burst does, with work held for as long as the
// test wants, and check what a login meets then.

/** Waits until `condition` holds (the gate's state changes as requests arrive), for at most 5 s. */
async function until (condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !condition() && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test('with the gate full, a login is answered at once: 503, Retry-After and a text the page shows, through the edge', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'owner@example.com')
  const { concurrency, maxQueue } = services.hashGate.options
  const burst = occupyHashGate(services.hashGate, concurrency + maxQueue)
  t.equal(services.hashGate.load.running, concurrency)
  t.ok(services.hashGate.load.queued > 0, `and ${services.hashGate.load.queued} wait, as many as the gate will queue`)
  const started = performance.now()
  const answer = await postJson(base, '/accounts/v2/login', { email: 'owner@example.com', password: GOOD_PASSWORD })
  const tookMs = performance.now() - started
  t.equal(answer.status, 503)
  t.same(answer.body, { error: englishAnswers['failure.busy'] })
  t.match(answer.headers.get('retry-after'), /^[1-9]\d*$/, 'Retry-After, in whole seconds, reaches the page')
  t.equal(answer.headers.get('cache-control'), 'no-store')
  t.comment(`refused in ${tookMs.toFixed(0)} ms`)
  const registration = await postJson(base, '/accounts/register', { email: 'new@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
  t.same([registration.status, registration.body], [503, { error: englishAnswers['failure.busy'] }], 'registration hashes too, and is refused alike')
  t.same(await services.store.readLoginThrottle(accountThrottleKey('owner@example.com')), { failures: 0, lockedUntil: 0 },
    'a refused attempt checked no password and counts as no failure')
  await burst.release()
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'owner@example.com', password: GOOD_PASSWORD })).status, 200,
    'once the burst is over, the owner signs in')
})

t.test('the service\'s gate starts no hash whose answer would come after the edge gave up: it knows the edge\'s UPSTREAM_TIMEOUT_MS', async (t) => {
  const { services } = await startReference(t, { env: { UPSTREAM_TIMEOUT_MS: '4000' } })
  t.equal(services.hashGate.options.answerWithinMs, 4000)
  t.equal(services.hashGate.options.maxWaitMs, 2000, 'the machine\'s sizes otherwise')
})

t.test('a burst on a machine where one hash outlasts the gate\'s wait: the slots\' next turns sign in, the rest are 503 with Retry-After, none 504', async (t) => {
  // A real hash, slower than the wait: scrypt at 2^15 (32 MiB, tens of milliseconds at least) against a 5 ms wait,
  // one at a time, behind the edge's own wait (UPSTREAM_TIMEOUT_MS, its default). A gate that judged even a slot's
  // next turn by the wait let only the running login through, and each of the rest was refused.
  const { base, services } = await startReference(t, {
    env: { PASSWORD_HASH_COST: '15' },
    edgeEnv: { UPSTREAM_TIMEOUT_MS: '10000' },
    hashGate: { concurrency: 1, maxQueue: 64, maxWaitMs: 5 }
  })
  await registerAccount(base, 'owner@example.com')
  await until(() => services.hashGate.load.running === 0)
  const burst = await Promise.all(Array.from({ length: 8 }, async () =>
    await postJson(base, '/accounts/v2/login', { email: 'owner@example.com', password: GOOD_PASSWORD })))
  const statuses = burst.map((answer) => answer.status)
  t.comment(`answers: ${statuses.join(', ')}`)
  t.ok(statuses.filter((status) => status === 200).length >= 2, 'the running login and the slot\'s next turn signed in')
  t.ok(statuses.includes(503), 'the excess was shed')
  t.notOk(statuses.includes(504), 'none waited until the edge gave up')
  for (const refused of burst.filter((answer) => answer.status !== 200)) {
    t.same([refused.status, refused.body], [503, { error: englishAnswers['failure.busy'] }])
    t.match(refused.headers.get('retry-after'), /^[1-9]\d*$/)
  }
})

t.test('a login the edge gave up on is dropped before its password is checked', async (t) => {
  const logs = logCollector()
  const { base, services } = await startReference(t, { logStream: logs.stream, edgeEnv: { UPSTREAM_TIMEOUT_MS: '300' } })
  await registerAccount(base, 'owner@example.com')
  const burst = occupyHashGate(services.hashGate, services.hashGate.options.concurrency)
  const answer = await postJson(base, '/accounts/v2/login', { email: 'owner@example.com', password: 'a guess' })
  t.equal(answer.status, 504, 'the edge stopped waiting after its UPSTREAM_TIMEOUT_MS')
  const dropped = await logs.waitFor((line) => line.msg === 'password check refused by the hash gate')
  t.equal(dropped.reason, 'client-gone', 'the service saw the edge close the request, long before the gate\'s own wait was up')
  t.equal(dropped.level, 30, 'logged at info, without a stack')
  t.same(services.hashGate.load.queued, 0, 'its place in the queue is free')
  await burst.release()
  t.same(await services.store.readLoginThrottle(accountThrottleKey('owner@example.com')), { failures: 0, lockedUntil: 0 }, 'the guess was never checked')
  t.notOk(auditEvents(logs).includes('login.failed'))
})

t.test('a login whose visitor went away is dropped before its password is checked', async (t) => {
  const logs = logCollector()
  const { url, edgeHeaders, services } = await startReference(t, { logStream: logs.stream })
  // The service hashes its decoy as it starts: the gate must hold only what this test puts in it.
  await until(() => services.hashGate.load.running === 0)
  const burst = occupyHashGate(services.hashGate, services.hashGate.options.concurrency)
  const visitor = new AbortController()
  const login = fetch(`${url}/v2/login`, {
    method: 'POST',
    headers: { ...edgeHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'someone@example.com', password: 'a guess' }),
    signal: visitor.signal
  }).catch(() => 'aborted')
  await until(() => services.hashGate.load.queued === 1)
  t.equal(services.hashGate.load.queued, 1, 'the login waits in the queue')
  visitor.abort()
  t.equal(await login, 'aborted')
  const dropped = await logs.waitFor((line) => line.msg === 'password check refused by the hash gate')
  t.equal(dropped.reason, 'client-gone')
  t.equal(services.hashGate.load.queued, 0)
  await burst.release()
  t.notOk(auditEvents(logs).includes('login.failed'))
})
