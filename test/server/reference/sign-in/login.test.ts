import { decodeJwt } from 'jose'
import t from 'tap'
import { accountThrottleKey, addressThrottleKey } from '../../../../server/reference/sign-in/login-throttles.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const INVALID = { error: 'Invalid email or password.' }

t.test('logging in with the right password answers an auth and a refresh token, and nothing else', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'Lena@Example.com')
  const answer = await postJson(base, '/accounts/v2/login', { email: 'lena@example.com', password: GOOD_PASSWORD })
  t.equal(answer.status, 200)
  t.same(Object.keys(answer.body).sort(), ['auth', 'refresh'])
  t.match(answer.body.auth, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the auth token is a JWT')
  t.match(answer.body.refresh, /^[\w-]{43}$/, 'the refresh token is 32 random bytes, base64url')
  t.equal(answer.headers.get('cache-control'), 'no-store')
  const claims = decodeJwt(answer.body.auth as string)
  t.equal(claims.email, 'Lena@Example.com', 'the token carries the email as registered')
  t.same(claims.amr, ['pwd'])
})

t.test('a wrong password and an unknown email get the same answer', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'known@example.com')
  const wrongPassword = await postJson(base, '/accounts/v2/login', { email: 'known@example.com', password: 'not the password' })
  const unknownEmail = await postJson(base, '/accounts/v2/login', { email: 'unknown@example.com', password: 'not the password' })
  t.equal(wrongPassword.status, 401)
  t.same(wrongPassword.body, INVALID)
  t.equal(unknownEmail.status, 401)
  t.same(unknownEmail.body, INVALID)
})

t.test('a password differing only in case is wrong; the email is matched in any case', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'mixed@example.com', 'Mixed Case Password')
  t.same((await postJson(base, '/accounts/v2/login', { email: 'mixed@example.com', password: 'mixed case password' })).body, INVALID)
  const answer = await postJson(base, '/accounts/v2/login', { email: 'MIXED@EXAMPLE.COM', password: 'Mixed Case Password' })
  t.equal(answer.status, 200)
})

t.test('a password is compared after Unicode normalisation (NFKC), so either composition logs in', async (t) => {
  const { base } = await startReference(t)
  const composed = 'caf\u00e9 au lait!'
  const decomposed = 'cafe\u0301 au lait!'
  await registerAccount(base, 'unicode@example.com', composed)
  const answer = await postJson(base, '/accounts/v2/login', { email: 'unicode@example.com', password: decomposed })
  t.equal(answer.status, 200)
})

t.test('an account made with Google has no password: a password login is refused like any wrong password', async (t) => {
  const { base, services } = await startReference(t)
  await services.store.createAccount({ email: 'google-only@example.com', firstName: null, lastName: null, passwordHash: null, googleSubject: 'g-1' })
  const answer = await postJson(base, '/accounts/v2/login', { email: 'google-only@example.com', password: GOOD_PASSWORD })
  t.equal(answer.status, 401)
  t.same(answer.body, INVALID)
})

const badLogins: Array<[string, unknown, Record<string, string>]> = [
  ['no email', { password: GOOD_PASSWORD }, { error: 'Enter your email address.' }],
  ['a blank email', { email: '   ', password: GOOD_PASSWORD }, { error: 'Enter your email address.' }],
  ['an email that is not text', { email: ['a@example.com'], password: GOOD_PASSWORD }, { error: 'Enter your email address.' }],
  ['an invalid email', { email: 'not-an-email', password: GOOD_PASSWORD }, { error: 'Enter a valid email address.' }],
  ['no password', { email: 'a@example.com' }, { error: 'Enter your password.' }],
  ['an empty password', { email: 'a@example.com', password: '' }, { error: 'Enter your password.' }],
  ['a password that is not text', { email: 'a@example.com', password: 12345678 }, { error: 'Enter your password.' }],
  ['a password over 256 characters', { email: 'a@example.com', password: 'x'.repeat(257) }, INVALID],
  ['a body that is a list', [], { error: 'Enter your email address.' }],
  ['a body that is null', null, { error: 'Enter your email address.' }]
]

t.test('a login with bad fields answers 400 with a readable error and checks no password', async (t) => {
  const { base, services } = await startReference(t)
  for (const [name, body, expected] of badLogins) {
    const answer = await postJson(base, '/accounts/v2/login', body)
    t.equal(answer.status, 400, `${name}: 400`)
    t.same(answer.body, expected, `${name}: ${expected.error}`)
  }
  t.same(await services.store.readLoginThrottle(accountThrottleKey('a@example.com')), { failures: 0, lockedUntil: 0 }, 'no failure was counted')
  t.same(await services.store.readLoginThrottle(addressThrottleKey('a@example.com', '127.0.0.1')), { failures: 0, lockedUntil: 0 })
})

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

t.test('an unknown email and a wrong password take similar time (figures printed, never asserted)', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'timed@example.com')
  const unknown: number[] = []
  const wrong: number[] = []
  for (let round = 0; round < 5; round++) {
    let started = performance.now()
    t.equal((await postJson(base, '/accounts/v2/login', { email: `nobody-${round}@example.com`, password: 'wrong guess' })).status, 401)
    unknown.push(performance.now() - started)
    started = performance.now()
    t.equal((await postJson(base, '/accounts/v2/login', { email: 'timed@example.com', password: 'wrong guess' })).status, 401)
    wrong.push(performance.now() - started)
    // Keep the known address below the lock, which would answer at once, and the account below its slow-down.
    await services.store.clearLoginFailures(addressThrottleKey('timed@example.com', '127.0.0.1'))
    await services.store.clearLoginFailures(accountThrottleKey('timed@example.com'))
  }
  const ratio = median(unknown) / median(wrong)
  t.comment(`median login time: unknown email ${median(unknown).toFixed(0)} ms, wrong password ${median(wrong).toFixed(0)} ms, ratio ${ratio.toFixed(2)}`)
})
