import { scrypt } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import t from 'tap'
import {
  addressThrottleKey,
  FREE_LOGIN_FAILURES,
  loginLockDuration,
  MAX_LOGIN_LOCK_MS
} from '../../../../server/reference/sign-in/login-throttles.js'
import { SCRYPT_PARAMETERS } from '../../../../server/reference/passwords/passwords.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const INVALID = { error: 'Invalid email or password.' }

/** The lock of attempts on `email` from this test's address (the edge and the test run on loopback). */
const pairKey = (email: string): string => addressThrottleKey(email, '127.0.0.1')
const WAIT_TEXT = /^Too many failed attempts\. Please wait (\d+) seconds? and try again\.$/

t.test('four failures are free, then each lock doubles from one second up to fifteen minutes', async (t) => {
  t.equal(FREE_LOGIN_FAILURES, 4)
  t.same([1, 2, 3, 4].map(loginLockDuration), [0, 0, 0, 0])
  t.same([5, 6, 7, 8, 9].map(loginLockDuration), [1000, 2000, 4000, 8000, 16_000])
  t.equal(loginLockDuration(14), 512_000)
  t.equal(loginLockDuration(15), MAX_LOGIN_LOCK_MS, 'capped at 15 minutes')
  t.equal(loginLockDuration(1000), 15 * 60 * 1000, 'and stays capped')
})

t.test('a lock is keyed by the account in any case and the address range, however the address is written', async (t) => {
  const key = addressThrottleKey('Owner@Example.com', '198.51.100.9')
  t.equal(addressThrottleKey('owner@example.com', '198.51.100.9'), key, 'the email in any case')
  t.equal(addressThrottleKey('owner@example.com', '::ffff:198.51.100.9'), key, 'IPv4 as a dual-stack listener reports it')
  t.not(addressThrottleKey('owner@example.com', '::ffff:198.51.100.10'), key, 'and its neighbour is another range, not one shared /64')
  t.equal(addressThrottleKey('owner@example.com', '2001:DB8:1:2::7'), addressThrottleKey('owner@example.com', '2001:db8:1:2:ffff::1'), 'one IPv6 /64')
  t.not(addressThrottleKey('other@example.com', '198.51.100.9'), key, 'another account')
})

for (const [kind, registered] of [['a known email', true], ['an unknown email', false]] as const) {
  t.test(`the fifth failed login of ${kind} locks it for one second`, async (t) => {
    const { base, services } = await startReference(t)
    if (registered) await registerAccount(base, 'target@example.com')
    for (let attempt = 1; attempt <= 4; attempt++) {
      const answer = await postJson(base, '/accounts/v2/login', { email: 'target@example.com', password: `wrong guess ${attempt}` })
      t.same([answer.status, answer.body], [401, INVALID], `failure ${attempt} answers 401`)
    }
    const free = await services.store.readLoginThrottle(pairKey('target@example.com'))
    t.equal(free.failures, 4)
    t.ok(free.lockedUntil <= Date.now(), 'four failures lock nothing')
    const before = Date.now()
    const fifth = await postJson(base, '/accounts/v2/login', { email: 'TARGET@example.com', password: 'wrong guess 5' })
    const after = Date.now()
    t.same([fifth.status, fifth.body], [401, INVALID], 'the fifth failure itself still answers 401')
    const throttle = await services.store.readLoginThrottle(pairKey('target@example.com'))
    t.equal(throttle.failures, 5, 'counted for the address in any case')
    t.ok(throttle.lockedUntil >= before + 1000 && throttle.lockedUntil <= after + 1000, 'locked for one second from the failure')
  })
}

t.test('a locked address answers 429 with the wait, even to the right password; an unknown email is answered identically', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'locked@example.com')
  for (const email of ['locked@example.com', 'ghost@example.com']) {
    for (let failure = 1; failure <= 9; failure++) {
      await services.store.recordLoginFailure(pairKey(email), loginLockDuration, Date.now())
    }
  }
  const known = await postJson(base, '/accounts/v2/login', { email: 'locked@example.com', password: GOOD_PASSWORD })
  const unknown = await postJson(base, '/accounts/v2/login', { email: 'ghost@example.com', password: GOOD_PASSWORD })
  t.equal(known.status, 429)
  t.match(known.body.error, WAIT_TEXT)
  t.equal(WAIT_TEXT.exec(known.body.error as string)![1], '16', 'the ninth failure locks for 16 seconds')
  t.same(Object.keys(known.body), ['error'], 'no tokens')
  t.equal(unknown.status, 429)
  t.same(unknown.body, known.body, 'the same answer for an address with no account')
  t.equal((await services.store.readLoginThrottle(pairKey('locked@example.com'))).failures, 9, 'a refused attempt is not counted')
})

t.test('a successful login clears the failures, so the count starts again', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'clears@example.com')
  for (let attempt = 1; attempt <= 3; attempt++) {
    await postJson(base, '/accounts/v2/login', { email: 'clears@example.com', password: `wrong guess ${attempt}` })
  }
  t.equal((await services.store.readLoginThrottle(pairKey('clears@example.com'))).failures, 3)
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'clears@example.com', password: GOOD_PASSWORD })).status, 200)
  t.same(await services.store.readLoginThrottle(pairKey('clears@example.com')), { failures: 0, lockedUntil: 0 })
  await postJson(base, '/accounts/v2/login', { email: 'clears@example.com', password: 'wrong again' })
  t.equal((await services.store.readLoginThrottle(pairKey('clears@example.com'))).failures, 1)
})

/**
 * Holds every thread of libuv's pool (4 by default) with scrypt work for
 * a second or more, so that a login's own scrypt waits behind it: the test
 * can then change the throttle while that login is between its lock check and
 * its answer, as parallel guesses would.
 */
function occupyThreadPool (): Promise<unknown> {
  return Promise.all(Array.from({ length: 4 }, () => new Promise((resolve) => {
    scrypt('busy', 'salt', 32, { ...SCRYPT_PARAMETERS, maxmem: 256 * 1024 * 1024 }, resolve)
  })))
}

const overlapping = [
  // The five failures lock for one second, over by the time this attempt's hash is done: the wait shown is the least.
  ['the right password', GOOD_PASSWORD, 5, 'Too many failed attempts. Please wait 1 second and try again.'],
  // This attempt's own failure is the sixth, which locks for two seconds.
  ['a wrong password', 'wrong guess', 6, 'Too many failed attempts. Please wait 2 seconds and try again.']
] as const

for (const [kind, password, expectedFailures, expectedText] of overlapping) {
  t.test(`an attempt with ${kind} that overlaps failures which lock the address answers 429, as a locked address does`, async (t) => {
    const { base, services, app } = await startReference(t)
    await registerAccount(base, 'parallel@example.com')
    const busy = occupyThreadPool()
    // The reference service logs requests only once answered (as in production), so its HTTP server tells when this one arrives.
    const arrived = new Promise<void>((resolve) => app.server.on('request', (request: IncomingMessage) => {
      if (request.url === '/v2/login') resolve()
    }))
    const attempt = postJson(base, '/accounts/v2/login', { email: 'parallel@example.com', password })
    await arrived
    // The attempt has passed its lock check and waits for a thread to hash on.
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (let failure = 1; failure <= 5; failure++) {
      await services.store.recordLoginFailure(pairKey('parallel@example.com'), loginLockDuration, Date.now())
    }
    const answer = await attempt
    await busy
    t.equal(answer.status, 429, 'no answer tells whether this guess was right')
    t.same(answer.body, { error: expectedText })
    t.equal((await services.store.readLoginThrottle(pairKey('parallel@example.com'))).failures, expectedFailures,
      'the failures stay counted')
  })
}
