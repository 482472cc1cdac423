import t, { type Test } from 'tap'
import {
  accountThrottleKey,
  addressThrottleKey,
  FREE_ACCOUNT_FAILURES,
  MAX_ACCOUNT_DELAY_MS
} from '../../../../server/reference/sign-in/login-throttles.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, type ReferenceOptions } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

// Locks once keyed by the account alone: failures from every address locked it, right
// password included, so that one guess per quarter of an hour kept its owner
// out. Each test is that attack: an attacker fails again and again, and the
// owner signs in all the same.

const VICTIM = 'victim@example.com'
const VICTIM_HOME = '198.51.100.9'
const ATTACKER = '203.0.113.66'
const WAIT_TEXT = /^Too many failed attempts\. Please wait \d+ (seconds?|minutes) and try again\.$/

/** The reference service behind an edge that takes client addresses from X-Forwarded-For, as behind a load balancer. */
function startBehindProxy (t: Test, options: ReferenceOptions = {}): ReturnType<typeof startReference> {
  return startReference(t, { ...options, edgeEnv: { TRUST_PROXY: 'loopback' } })
}

function loginFrom (base: string, address: string, password: string, cookie?: string) {
  return postLogin(base, VICTIM, password, { headers: { 'x-forwarded-for': address, ...(cookie === undefined ? {} : { cookie }) } })
}

/** The known-browser cookie a sign-in set, as the browser sends it back. */
function browserCookie (answer: { headers: Headers }): string {
  const cookie = answer.headers.getSetCookie().find((value) => value.startsWith('threshold_browser='))
  if (cookie === undefined) throw new Error('no known-browser cookie was set')
  return cookie.split(';')[0]!
}

/** Fails until the attacker's pair is locked (and a little beyond): each failure answers 401 or 429. */
async function attack (t: Test, base: string, from: string, failures: number): Promise<void> {
  const statuses = new Set<number>()
  for (let guess = 1; guess <= failures; guess++) statuses.add((await loginFrom(base, from, `guess number ${guess}`)).status)
  t.same([...statuses].sort(), [401, 429], `the attacker's ${failures} guesses were refused, then locked out`)
}

t.test("an attacker's failures lock his own address out of the account, and the owner signs in from hers", async (t) => {
  const { base, services } = await startBehindProxy(t)
  await registerAccount(base, VICTIM)
  await attack(t, base, ATTACKER, 8)
  const locked = await loginFrom(base, ATTACKER, GOOD_PASSWORD)
  t.equal(locked.status, 429, 'even the right password is refused from the locked pair: a lock tells nothing')
  t.match(locked.body.error, WAIT_TEXT)
  t.ok((await services.store.readLoginThrottle(addressThrottleKey(VICTIM, ATTACKER))).lockedUntil > Date.now(), 'the lock is on the attacker\'s pair')
  t.same(await services.store.readLoginThrottle(addressThrottleKey(VICTIM, VICTIM_HOME)), { failures: 0, lockedUntil: 0 }, 'none on hers')

  const owner = await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD)
  t.equal(owner.status, 200, 'the owner signs in with the right password while the attacker is locked out')
  t.same(Object.keys(owner.body).sort(), ['auth', 'refresh'])
  t.equal((await loginFrom(base, ATTACKER, GOOD_PASSWORD)).status, 429, "her sign-in does not lift the attacker's lock")
})

t.test('an attacker moving through the addresses of one IPv6 /64 is one pair, locked as one', async (t) => {
  const { base } = await startBehindProxy(t)
  await registerAccount(base, VICTIM)
  const statuses: number[] = []
  for (let guess = 1; guess <= 6; guess++) statuses.push((await loginFrom(base, `2001:db8:bad:1::${guess.toString(16)}`, `guess ${guess}`)).status)
  t.same(statuses, [401, 401, 401, 401, 401, 429], 'the sixth guess, from yet another address of the /64, meets the lock the fifth set')
  t.equal((await loginFrom(base, '2001:db8:bad:1:ffff::1', GOOD_PASSWORD)).status, 429, 'the whole /64 is locked')
  t.equal((await loginFrom(base, '2001:db8:600d:1::1', GOOD_PASSWORD)).status, 200, 'another /64 is not')
})

t.test('a browser that signed in to the account before still signs in, even from the address range the attacker shares', async (t) => {
  const { base } = await startBehindProxy(t)
  await registerAccount(base, VICTIM)
  const cookie = browserCookie(await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD))
  // The attacker is behind the same address (a shared NAT, a café's network).
  await attack(t, base, VICTIM_HOME, 8)
  t.equal((await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD)).status, 429, 'a browser new to the account, behind that address, is locked out with the attacker')
  const known = await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD, cookie)
  t.equal(known.status, 200, 'the owner\'s known browser signs in with the right password')

  const stranger = browserCookie(await postJson(base, '/accounts/register', { email: 'other@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }))
  t.equal((await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD, stranger)).status, 429,
    'a browser known to another account (the attacker\'s own) is no key to this one')
})

t.test('a known browser has a lock of its own: its failures lock it, not the others', async (t) => {
  const { base } = await startBehindProxy(t)
  await registerAccount(base, VICTIM)
  const cookie = browserCookie(await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD))
  const statuses: number[] = []
  for (let guess = 1; guess <= 6; guess++) statuses.push((await loginFrom(base, VICTIM_HOME, `guess ${guess}`, cookie)).status)
  t.same(statuses, [401, 401, 401, 401, 401, 429], 'stolen or not, the browser gets four free failures, then its locks')
  t.equal((await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD)).status, 200, 'the same address without that browser is not locked')
})

t.test('failures spread over many addresses slow the account down, never shut it; a known browser is not slowed', async (t) => {
  const logs = logCollector()
  const { base, services } = await startBehindProxy(t, { logStream: logs.stream })
  await registerAccount(base, VICTIM)
  const cookie = browserCookie(await loginFrom(base, VICTIM_HOME, GOOD_PASSWORD))
  // Four guesses from each address: never a lock, and the account-wide count climbs.
  const addresses = Array.from({ length: 3 }, (_, index) => `192.0.2.${index + 10}`)
  for (const address of addresses) {
    for (let guess = 1; guess <= 4; guess++) t.equal((await loginFrom(base, address, `guess ${guess}`)).status, 401)
  }
  t.ok((await services.store.readLoginThrottle(accountThrottleKey(VICTIM))).failures > FREE_ACCOUNT_FAILURES, 'past the free account-wide failures')
  const slowedBefore = auditEvents(logs).filter((event) => event === 'login.slowed').length
  t.ok(slowedBefore > 0, 'the later guesses were slowed')

  const started = performance.now()
  const newPlace = await loginFrom(base, '192.0.2.200', GOOD_PASSWORD)
  const waited = performance.now() - started
  t.equal(newPlace.status, 200, 'the right password from a new address and browser is slowed, and then let in')
  t.equal(auditEvents(logs).filter((event) => event === 'login.slowed').length, slowedBefore + 1)
  const slowed = logs.lines.findLast((line) => line.audit === 'login.slowed')!
  t.ok((slowed.delayMs as number) <= MAX_ACCOUNT_DELAY_MS, `the delay (${String(slowed.delayMs)} ms) is capped at ${MAX_ACCOUNT_DELAY_MS} ms`)
  t.comment(`a sign-in from a new place took ${waited.toFixed(0)} ms while the account was being guessed at`)

  t.equal((await loginFrom(base, '192.0.2.201', GOOD_PASSWORD, cookie)).status, 200)
  t.equal(auditEvents(logs).filter((event) => event === 'login.slowed').length, slowedBefore + 1, 'the known browser was not slowed')
})
