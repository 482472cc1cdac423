import { randomBytes } from 'node:crypto'
import { decodeJwt } from 'jose'
import { Secret, TOTP } from 'otpauth'
import t, { type Test } from 'tap'
import { googleNonceFor } from '../../../../server/reference/google/google-id-token.js'
import { FREE_LOGIN_FAILURES } from '../../../../server/reference/sign-in/login-throttles.js'
import { matchingStep } from '../../../../server/reference/second-factor/second-factor-codes.js'
import { secondFactorThrottleKey } from '../../../../server/reference/second-factor/code-throttle.js'
import { hashToken, newOpaqueToken } from '../../../../server/reference/sessions/tokens.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID, type GoogleStandIn } from '../../../fixtures/google/google-identity.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { GOOD_PASSWORD, startReference, TEST_PUBLIC_URL, type Reference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount, verifyAddress } from '../../../fixtures/registration/registration.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/** A clock the service reads, moved by whole 30-second steps so that each code is a new one. */
class Clock {
  // Near the real time (auth tokens are checked against this clock), at the start of a step.
  value = Math.floor(Date.now() / 30_000) * 30_000 + 1000
  now = (): number => this.value
  nextStep (): void { this.value += 30_000 }
}

interface Setup {
  readonly reference: Reference
  readonly clock: Clock
  readonly google: GoogleStandIn
}

async function setUp (t: Test, env: Record<string, string> = {}): Promise<Setup> {
  const clock = new Clock()
  const google = await startGoogleStandIn(t)
  const reference = await startReference(t, {
    now: clock.now,
    env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl, ...env }
  })
  return { reference, clock, google }
}

const call = (setup: Setup, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(setup.reference.base, `/accounts/${path}`, body, headers)

const login = (setup: Setup, email: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  postLogin(setup.reference.base, email, GOOD_PASSWORD, { headers, extra })

/** The code the authenticator app shows for `secret` at the service's time. */
function codeFor (setup: Setup, secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: setup.clock.value })
}

const recoveryCodesOf = new Map<string, string[]>()
/** An unused recovery code of an account enrolled with enrolled() (each is handed out once). */
function recoveryOf (email: string): string {
  return recoveryCodesOf.get(email)!.pop()!
}

/** A registered account with an authenticator enrolled through the signed-in enrolment: its secret and recovery codes. */
async function enrolled (setup: Setup, email: string): Promise<{ secret: string, recoveryCodes: string[] }> {
  const registering = await registerAccount(setup.reference.base, email)
  // Her own address, verified where she registered: what she sets up is hers (an unverified account's would go with its claim).
  await verifyAddress(setup.reference.base, setup.reference.dataDir, email, registering)
  // In the browser that signed in: the sign-in is its fresh proof.
  const browser = new ServiceBrowser(setup.reference.base)
  const bearer = await browser.bearerAfterSignIn(email)
  const started = await browser.post('second-factor/enrol/start', {}, bearer)
  const secret = String(started.body.secret)
  const confirmed = await browser.post('second-factor/enrol/confirm', { code: codeFor(setup, secret) }, bearer)
  if (confirmed.status !== 200) throw new Error(`enrolment failed: ${JSON.stringify(confirmed.body)}`)
  recoveryCodesOf.set(email, confirmed.body.recovery_codes as string[])
  setup.clock.nextStep()
  return { secret, recoveryCodes: confirmed.body.recovery_codes as string[] }
}

/** The second_factor_browser cookie a Set-Cookie list holds, as a Cookie header; null when none. */
function rememberedCookie (headers: Headers): string | null {
  const set = headers.getSetCookie().find((cookie) => cookie.startsWith('second_factor_browser='))
  return set === undefined ? null : set.split(';')[0]!
}

t.test('TOTP follows RFC 6238: the SHA-1 test vectors (their last 6 digits) match at their times and steps', async (t) => {
  // RFC 6238's test vectors: the ASCII secret "12345678901234567890", 8-digit codes; a 6-digit code is their last 6.
  const secret = new Secret({ buffer: new TextEncoder().encode('12345678901234567890').buffer }).base32
  const vectors: Array<[number, string]> = [
    [59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'],
    [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130']
  ]
  for (const [seconds, code] of vectors) {
    t.equal(new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 8, period: 30 }).generate({ timestamp: seconds * 1000 }), code,
      `otpauth gives the RFC's 8 digits at ${seconds}`)
    t.equal(matchingStep(secret, code.slice(2), seconds * 1000), Math.floor(seconds / 30), `the 6-digit code at ${seconds} is its step's`)
  }
  t.equal(matchingStep(secret, '287082', 59_000 + 30_000), 1, 'the step before is accepted (clock drift)')
  t.equal(matchingStep(secret, '287082', 59_000 + 60_000), null, 'two steps later it is not')
  t.equal(matchingStep(secret, '287083', 59_000), null, 'a wrong code matches no step')
})

t.test('an organisation that requires a second factor: enrolment during sign-in, then codes, recovery codes and refusals', async (t) => {
  const setup = await setUp(t)
  const { store } = setup.reference.services
  await registerAccount(setup.reference.base, 'ada@example.com')
  const ada = (await store.findAccountByEmail('ada@example.com'))!
  await store.addMembership(ada.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)

  const elsewhere = await login(setup, 'ada@example.com', {}, { insecure_allowed_orgs: ['globex'] })
  t.same([elsewhere.status, elsewhere.body], [403, { error: 'Your account is not a member of an organisation allowed here.' }],
    'a login that cannot succeed asks for no second factor')
  const first = await login(setup, 'ada@example.com', {}, { insecure_allowed_orgs: ['acme'] })
  t.equal(first.status, 200)
  t.same(Object.keys(first.body).sort(), ['challenge', 'expires_in', 'second_factor'], 'a challenge and never tokens')
  t.match(first.body, { second_factor: 'enrol', challenge: /^[\w-]{43}$/, expires_in: 300 })
  const enrolChallenge = String(first.body.challenge)

  t.equal((await call(setup, 'second-factor/verify', { challenge: enrolChallenge, code: '123456' })).status, 401,
    'an enrol challenge gives no sign-in by a code')
  const started = await call(setup, 'second-factor/enrol/start', { challenge: enrolChallenge })
  t.equal(started.status, 200)
  const secret = String(started.body.secret)
  t.match(secret, /^[A-Z2-7]{32}$/, '20 random bytes, base32')
  t.match(String(started.body.otpauth_uri), new RegExp(`^otpauth://totp/Threshold:ada%40example\\.com\\?issuer=Threshold&secret=${secret}&algorithm=SHA1&digits=6&period=30$`))

  t.same((await call(setup, 'second-factor/enrol/confirm', { challenge: enrolChallenge, code: '12a456' })).status, 400)
  const wrong = await call(setup, 'second-factor/enrol/confirm', { challenge: enrolChallenge, code: codeFor(setup, secret) === '000000' ? '000001' : '000000' })
  t.equal(wrong.status, 401, 'a wrong first code is refused')
  const confirmed = await call(setup, 'second-factor/enrol/confirm', { challenge: enrolChallenge, code: codeFor(setup, secret) })
  t.equal(confirmed.status, 200)
  const recoveryCodes = confirmed.body.recovery_codes as string[]
  t.equal(recoveryCodes.length, 10)
  t.equal(new Set(recoveryCodes).size, 10)
  for (const code of recoveryCodes) t.match(code, /^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/)
  const claims = decodeJwt(String(confirmed.body.auth))
  t.same(claims.amr, ['pwd', 'otp', 'mfa'])
  t.same(claims.orgs, ['acme'], 'the login\'s context reaches the tokens')
  t.type(confirmed.body.refresh, 'string')
  t.equal((await call(setup, 'second-factor/enrol/confirm', { challenge: enrolChallenge, code: codeFor(setup, secret) })).status, 401,
    'the challenge is spent')
  const signedIn = { authorization: `Bearer ${String(confirmed.body.auth)}` }
  t.equal((await call(setup, 'second-factor/enrol/start', {}, signedIn)).status, 403, 'the bearer token alone is no proof')
  const proof = confirmed.headers.getSetCookie().find((cookie) => cookie.startsWith('threshold_proof='))!.split(';')[0]!
  t.equal((await call(setup, 'second-factor/enrol/start', {}, { ...signedIn, cookie: proof })).status, 409,
    'enrolled already, for the browser that signed in')
  const stored = await store.findSecondFactor(ada.id)
  t.notMatch(stored!.encryptedSecret, secret, 'the secret is not stored in the clear')

  setup.clock.nextStep()
  const second = await login(setup, 'ada@example.com')
  t.match(second.body, { second_factor: 'code', expires_in: 300 })
  t.notOk('auth' in second.body)
  const challenge = String(second.body.challenge)
  for (const malformed of [{ code: '12345' }, { code: '1234567' }, { code: 'abcdef' }, { code: 123456 }, { recovery_code: 'abc' },
    { recovery_code: 'abcd-efgh-ijkl' }, { code: '123456', recovery_code: recoveryCodes[0] }, {}]) {
    const answer = await call(setup, 'second-factor/verify', { challenge, ...malformed })
    t.equal(answer.status, 400, `malformed: ${JSON.stringify(malformed)}`)
    t.type(answer.body.error, 'string')
  }
  t.equal((await call(setup, 'second-factor/verify', { challenge: newOpaqueToken(), code: codeFor(setup, secret) })).status, 401, 'an unknown challenge')
  const code = codeFor(setup, secret)
  const verified = await call(setup, 'second-factor/verify', { challenge, code })
  t.equal(verified.status, 200)
  t.same(Object.keys(verified.body).sort(), ['auth', 'refresh'])
  t.same(decodeJwt(String(verified.body.auth)).amr, ['pwd', 'otp', 'mfa'])
  t.equal(rememberedCookie(verified.headers), null, 'no remembered browser unless asked')
  t.equal((await call(setup, 'second-factor/verify', { challenge, code })).status, 401, 'a used challenge')

  const third = String((await login(setup, 'ada@example.com')).body.challenge)
  const replayed = await call(setup, 'second-factor/verify', { challenge: third, code })
  t.equal(replayed.status, 401, 'a code used once is refused within its step')
  t.match(replayed.body, { error: /not right, or was used already/ })

  const byRecovery = await call(setup, 'second-factor/verify', { challenge: third, recovery_code: recoveryCodes[3]!.toUpperCase().replace('-', ' ') })
  t.equal(byRecovery.status, 200, 'a recovery code, typed in capitals with a space, signs in; the refusal before did not spend the challenge')
  const fourth = String((await login(setup, 'ada@example.com')).body.challenge)
  t.equal((await call(setup, 'second-factor/verify', { challenge: fourth, recovery_code: recoveryCodes[3] })).status, 401, 'a recovery code works once')
  t.equal(await store.countUnusedRecoveryCodes(ada.id), 9)

  const expiring = String((await login(setup, 'ada@example.com')).body.challenge)
  setup.clock.value += 5 * 60_000
  t.equal((await call(setup, 'second-factor/verify', { challenge: expiring, code: codeFor(setup, secret) })).status, 401, 'an expired challenge')
  t.equal(await store.findSecondFactorChallenge(hashToken(expiring), setup.clock.value), null)
})

t.test('another account\'s code, or a challenge of another account, does not sign in', async (t) => {
  const setup = await setUp(t)
  const ada = await enrolled(setup, 'ada@example.com')
  const bob = await enrolled(setup, 'bob@example.com')
  const adasChallenge = String((await login(setup, 'ada@example.com')).body.challenge)
  t.equal((await call(setup, 'second-factor/verify', { challenge: adasChallenge, code: codeFor(setup, bob.secret) })).status, 401)
  t.equal((await call(setup, 'second-factor/verify', { challenge: adasChallenge, recovery_code: bob.recoveryCodes[0] })).status, 401)
  const answer = await call(setup, 'second-factor/verify', { challenge: adasChallenge, code: codeFor(setup, ada.secret) })
  t.equal(answer.status, 200)
  t.equal(decodeJwt(String(answer.body.auth)).email, 'ada@example.com')
})

t.test('signed-in enrolment answers recovery codes only; an account with neither factor nor requirement signs in as before', async (t) => {
  const setup = await setUp(t)
  await registerAccount(setup.reference.base, 'cy@example.com')
  const browser = new ServiceBrowser(setup.reference.base)
  const plain = await browser.signIn('cy@example.com')
  t.same(Object.keys(plain.body).sort(), ['auth', 'refresh'])
  t.same(decodeJwt(String(plain.body.auth)).amr, ['pwd'])
  const bearer = { authorization: `Bearer ${String(plain.body.auth)}` }
  t.equal((await browser.post('second-factor/enrol/start', {})).status, 401, 'neither challenge nor token')
  t.equal((await browser.post('second-factor/enrol/confirm', { code: '123456' }, bearer)).status, 400, 'nothing started')
  const secret = String((await browser.post('second-factor/enrol/start', {}, bearer)).body.secret)
  const confirmed = await browser.post('second-factor/enrol/confirm', { code: codeFor(setup, secret) }, bearer)
  t.same(Object.keys(confirmed.body), ['recovery_codes'])
  setup.clock.nextStep()
  t.match((await login(setup, 'cy@example.com')).body, { second_factor: 'code' })
})

t.test(`wrong codes are throttled per account: ${FREE_LOGIN_FAILURES} free, then a lock (429), and the right code waits too`, async (t) => {
  const setup = await setUp(t)
  const { secret } = await enrolled(setup, 'ada@example.com')
  const challenge = String((await login(setup, 'ada@example.com')).body.challenge)
  const right = codeFor(setup, secret)
  const wrong = right === '999999' ? '999998' : '999999'
  const statuses: number[] = []
  for (let attempt = 0; attempt < 6; attempt++) statuses.push((await call(setup, 'second-factor/verify', { challenge, code: wrong })).status)
  t.same(statuses, [401, 401, 401, 401, 401, 429])
  const locked = await call(setup, 'second-factor/verify', { challenge, code: right })
  t.equal(locked.status, 429)
  t.match(locked.body, { error: /Too many failed attempts/ })
})

t.test('"don\'t ask again on this browser": the cookie skips the code step for its account only, until a reset or the operator forgets it', async (t) => {
  const setup = await setUp(t)
  const ada = await enrolled(setup, 'ada@example.com')
  const bob = await enrolled(setup, 'bob@example.com')
  const verifyRemembering = async (email: string, secret: string) => {
    const challenge = String((await login(setup, email)).body.challenge)
    const answer = await call(setup, 'second-factor/verify', { challenge, code: codeFor(setup, secret), remember_browser: true })
    setup.clock.nextStep()
    return answer
  }
  const answer = await verifyRemembering('ada@example.com', ada.secret)
  // Through the edge on http://127.0.0.1, a loopback page over plain http: without Secure (docs/security.md, "Plain http on loopback"; over https it keeps it: test/server/edge/http/loopback-http.test.ts).
  t.match(answer.headers.getSetCookie().find((cookie) => cookie.startsWith('second_factor_browser=')),
    /^second_factor_browser=\d+\.[\w-]{43}; Max-Age=2592000; Path=\/accounts; HttpOnly; SameSite=Lax$/)
  const adasCookie = rememberedCookie(answer.headers)!
  const skipped = await login(setup, 'ada@example.com', { cookie: adasCookie })
  t.same(Object.keys(skipped.body).sort(), ['auth', 'refresh', 'second_factor_enrolled'], 'the remembered browser signs in with the password alone')
  t.equal(skipped.body.second_factor_enrolled, true, 'with the hint that spares its owner the page\'s offer to enrol')
  t.same(decodeJwt(String(skipped.body.auth)).amr, ['pwd'])

  t.match((await login(setup, 'bob@example.com', { cookie: adasCookie })).body, { second_factor: 'code' }, 'another account\'s cookie')
  const [issued, mac] = adasCookie.slice('second_factor_browser='.length).split('.')
  const forged = `second_factor_browser=${Number(issued) + 1}.${mac}`
  t.match((await login(setup, 'ada@example.com', { cookie: forged })).body, { second_factor: 'code' }, 'a changed cookie')
  t.match((await login(setup, 'ada@example.com', { cookie: `second_factor_browser=${issued}.${'A'.repeat(43)}` })).body, { second_factor: 'code' }, 'a forged signature')
  setup.clock.value += 30 * 24 * 3600_000
  t.match((await login(setup, 'ada@example.com', { cookie: adasCookie })).body, { second_factor: 'code' }, 'after 30 days')

  // A password reset forgets every remembered browser of the account.
  const bobsCookie = rememberedCookie((await verifyRemembering('bob@example.com', bob.secret)).headers)!
  t.same(Object.keys((await login(setup, 'bob@example.com', { cookie: bobsCookie })).body).sort(), ['auth', 'refresh', 'second_factor_enrolled'])
  const { store } = setup.reference.services
  const bobAccount = (await store.findAccountByEmail('bob@example.com'))!
  const resetToken = newOpaqueToken()
  await store.insertResetToken(hashToken(resetToken), bobAccount.id, setup.clock.value + 60_000)
  const reset = await call(setup, 'resetPassword', { token: resetToken, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
  t.equal(reset.status, 200)
  t.match((await login(setup, 'bob@example.com', { cookie: bobsCookie })).body, { second_factor: 'code' }, 'forgotten by the reset')
  t.ok((await store.findSecondFactor(bobAccount.id))?.enrolledAt, 'the reset leaves the factor')
})

t.test('SECOND_FACTOR_REMEMBER_BROWSER=false: no cookie is set even when asked', async (t) => {
  const setup = await setUp(t, { SECOND_FACTOR_REMEMBER_BROWSER: 'false' })
  const { secret } = await enrolled(setup, 'ada@example.com')
  const challenge = String((await login(setup, 'ada@example.com')).body.challenge)
  const answer = await call(setup, 'second-factor/verify', { challenge, code: codeFor(setup, secret), remember_browser: true })
  t.equal(answer.status, 200)
  t.equal(rememberedCookie(answer.headers), null)
})

t.test('SECOND_FACTOR=false: the calls are not served and no login asks', async (t) => {
  const setup = await setUp(t, { SECOND_FACTOR: 'false' })
  await registerAccount(setup.reference.base, 'ada@example.com')
  const { store } = setup.reference.services
  await store.addMembership((await store.findAccountByEmail('ada@example.com'))!.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)
  const signedIn = await login(setup, 'ada@example.com')
  t.same(Object.keys(signedIn.body).sort(), ['auth', 'refresh'])
  t.equal((await call(setup, 'token/refresh', { refresh: signedIn.body.refresh })).status, 200, 'nor is its session refused a refresh')
  const direct = await fetch(`${setup.reference.url}/second-factor/verify`, { method: 'POST', headers: { ...setup.reference.edgeHeaders, 'content-type': 'application/json' }, body: '{}' })
  t.equal(direct.status, 404)
})

t.test('a token holder\'s wrong codes at an enrolment lock his tries there, not the account\'s code step', async (t) => {
  const setup = await setUp(t)
  const { base, dataDir, services } = setup.reference
  await verifyAddress(base, dataDir, 'ida@example.com', await registerAccount(base, 'ida@example.com'))
  const owner = new ServiceBrowser(base)
  const bearer = await owner.bearerAfterSignIn('ida@example.com')
  t.equal((await owner.post('second-factor/enrol/start', {}, bearer)).status, 200, 'Ida starts setting up her app')
  // Someone who read her token guesses at the pending enrolment from a browser of his own.
  const attacker = new ServiceBrowser(base)
  const statuses: number[] = []
  for (let guess = 0; guess < FREE_LOGIN_FAILURES + 2; guess++) {
    statuses.push((await attacker.post('second-factor/enrol/confirm', { code: String(100000 + guess) }, bearer)).status)
  }
  t.same(statuses, [...Array(FREE_LOGIN_FAILURES + 1).fill(401), 429], 'his guesses are throttled')
  const ida = (await services.store.findAccountByEmail('ida@example.com'))!
  const codeStep = await services.store.readLoginThrottle(secondFactorThrottleKey(ida.id))
  t.same([codeStep.failures, codeStep.lockedUntil], [0, 0], 'the sign-in\'s code step counts none of them')
})

t.test('a Google sign-in asks for the second factor as a password one does', async (t) => {
  const setup = await setUp(t)
  const googleToken = async (nonceSecret?: string) =>
    ({ authorization: `Bearer ${await setup.google.credential({ email: 'grace@example.com', sub: 'grace-google', ...nonceSecret === undefined ? {} : { nonce: googleNonceFor(nonceSecret) } })}` })
  const registrationSecret = randomBytes(32).toString('base64url')
  t.equal((await call(setup, 'auth/register', { register_method: 'GOOGLE', google_nonce_secret: registrationSecret }, await googleToken(registrationSecret))).status, 200)
  // Grace sets up her app in the browser she signed in with Google (the page's nonce makes it her proof).
  const browser = new ServiceBrowser(setup.reference.base)
  const signInSecret = randomBytes(32).toString('base64url')
  const signedIn = await browser.post('v2/auth/login', { login_method: 'GOOGLE', google_nonce_secret: signInSecret }, await googleToken(signInSecret))
  const bearer = { authorization: `Bearer ${String(signedIn.body.auth)}` }
  const secret = String((await browser.post('second-factor/enrol/start', {}, bearer)).body.secret)
  t.equal((await browser.post('second-factor/enrol/confirm', { code: codeFor(setup, secret) }, bearer)).status, 200)
  setup.clock.nextStep()

  const answer = await call(setup, 'v2/auth/login', { login_method: 'GOOGLE' }, await googleToken())
  t.equal(answer.status, 200)
  t.match(answer.body, { second_factor: 'code', expires_in: 300 })
  t.notOk('auth' in answer.body)
  const verified = await call(setup, 'second-factor/verify', { challenge: answer.body.challenge, code: codeFor(setup, secret) })
  t.equal(verified.status, 200)
  t.same(decodeJwt(String(verified.body.auth)).amr, ['google', 'otp', 'mfa'])
})

t.test('a passkey sign-in never asks for the second factor, even where an organisation requires one', async (t) => {
  const setup = await setUp(t)
  await enrolled(setup, 'ada@example.com')
  const { store } = setup.reference.services
  const ada = (await store.findAccountByEmail('ada@example.com'))!
  await store.addMembership(ada.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)
  // Ada signs in with a code once, then makes a passkey with the tokens she got.
  const challenge = String((await login(setup, 'ada@example.com')).body.challenge)
  t.ok((await store.findSecondFactor(ada.id))?.enrolledAt)
  const browser = new PasskeyBrowser(setup.reference.base)
  const authenticator = new SoftwareAuthenticator(TEST_PUBLIC_URL, { countsSignatures: false })
  const bearerLogin = await browser.post('second-factor/verify', { challenge, recovery_code: recoveryOf('ada@example.com') })
  t.equal(bearerLogin.status, 200)
  const auth = String(bearerLogin.body.auth)
  const credential = authenticator.create(await browser.registerOptions(auth))
  t.equal((await browser.post('passkeys/register', { credential }, { authorization: `Bearer ${auth}` })).status, 200)
  const assertion = authenticator.get(await browser.loginOptions())
  const signedIn = await browser.post('passkeys/login', { credential: assertion })
  t.equal(signedIn.status, 200)
  t.type(signedIn.body.auth, 'string')
  t.notOk('second_factor' in signedIn.body)
  t.same(decodeJwt(String(signedIn.body.auth)).amr, ['hwk'])
  const refreshed = await call(setup, 'token/refresh', { refresh: signedIn.body.refresh })
  t.equal(refreshed.status, 200, 'and its session refreshes: the requirement asks a passkey sign-in for nothing more')
})

t.test('once an organisation requires a second factor, a session that never gave one is refused its refresh and told to sign in again', async (t) => {
  const setup = await setUp(t)
  const { store } = setup.reference.services
  const refresh = (refreshToken: unknown, headers: Record<string, string> = {}) => call(setup, 'token/refresh', { refresh: refreshToken }, headers)
  // Sessions begun before the requirement: Ada's with her password alone; Bob's with a code, and from the browser he ticked "don't ask again" on.
  await registerAccount(setup.reference.base, 'ada@example.com')
  const adas = await login(setup, 'ada@example.com')
  const adasOtherBrowser = await login(setup, 'ada@example.com')
  const bob = await enrolled(setup, 'bob@example.com')
  const withCode = await call(setup, 'second-factor/verify', {
    challenge: (await login(setup, 'bob@example.com')).body.challenge, code: codeFor(setup, bob.secret), remember_browser: true
  })
  setup.clock.nextStep()
  const fromRememberedBrowser = await login(setup, 'bob@example.com', { cookie: rememberedCookie(withCode.headers)! })
  t.same(decodeJwt(String(fromRememberedBrowser.body.auth)).amr, ['pwd'], 'the remembered browser was not asked for the code')
  const adasNext = await refresh(adas.body.refresh)
  t.equal(adasNext.status, 200, 'before the requirement Ada\'s session refreshes')

  for (const email of ['ada@example.com', 'bob@example.com']) await store.addMembership((await store.findAccountByEmail(email))!.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)

  const refused = await refresh(adasNext.body.refresh)
  t.same([refused.status, refused.body], [401, {
    error: 'Your organisation now requires an authenticator app to sign in. Please sign in again.', reason: 'second_factor_required'
  }])
  t.ok((await store.findRefreshToken(hashToken(String(adasNext.body.refresh))))?.revokedAt, 'the session has ended')
  const inGerman = await refresh(adasOtherBrowser.body.refresh, { 'accept-language': 'de' })
  t.same([inGerman.status, inGerman.body.reason], [401, 'second_factor_required'], 'her other session too')
  t.equal(inGerman.body.error, 'Ihre Organisation verlangt jetzt eine Authenticator-App für die Anmeldung. Bitte melden Sie sich erneut an.')
  t.match((await login(setup, 'ada@example.com')).body, { second_factor: 'enrol' }, 'signing in again leads to the enrolment')

  for (const [name, session] of [['with a code', withCode], ['from the remembered browser', fromRememberedBrowser]] as const) {
    const next = await refresh(session.body.refresh)
    t.equal(next.status, 200, `Bob's session ${name} refreshes`)
    t.equal((await refresh(next.body.refresh)).status, 200, `and again: the refreshed session keeps how it met the second factor (${name})`)
  }
})

const SETUP_ELSEWHERE = 'An authenticator app is already being set up for this account, in another window or sign-in. ' +
  'Finish it there, or start again in a few minutes. If it was not you, reset your password.'

/**
 * Ada, whose organisation requires a second factor she has not enrolled, and the auth token of a session she
 * began before, with the browser it began in (whose sign-in is a fresh proof: the strongest bearer there is).
 */
async function adaToEnrol (setup: Setup): Promise<{ bearer: Record<string, string>, browser: ServiceBrowser }> {
  const { store } = setup.reference.services
  await registerAccount(setup.reference.base, 'ada@example.com')
  const browser = new ServiceBrowser(setup.reference.base)
  const before = await browser.signIn('ada@example.com')
  const ada = (await store.findAccountByEmail('ada@example.com'))!
  await store.addMembership(ada.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)
  return { bearer: { authorization: `Bearer ${String(before.body.auth)}` }, browser }
}

t.test('while a login enrols, another enrolment of the account (a bearer of its token, another sign-in) neither replaces nor confirms its secret', async (t) => {
  const setup = await setUp(t)
  const { bearer, browser } = await adaToEnrol(setup)
  const challenge = String((await login(setup, 'ada@example.com')).body.challenge)
  const started = await call(setup, 'second-factor/enrol/start', { challenge })
  t.equal(started.status, 200)
  const secret = String(started.body.secret) // what Ada's authenticator app scans

  const byBearer = await browser.post('second-factor/enrol/start', {}, bearer)
  t.same([byBearer.status, byBearer.body], [409, { error: SETUP_ELSEWHERE }], 'a start with the account\'s token is refused, and gets no secret')
  const otherLogin = String((await login(setup, 'ada@example.com')).body.challenge)
  t.same((await call(setup, 'second-factor/enrol/start', { challenge: otherLogin })).status, 409, 'so is another sign-in\'s')
  const foreignConfirm = await browser.post('second-factor/enrol/confirm', { code: codeFor(setup, secret) }, bearer)
  t.same([foreignConfirm.status, foreignConfirm.body], [409, { error: SETUP_ELSEWHERE }], 'nor may another enrolment confirm the secret, even with its code')
  t.equal((await call(setup, 'second-factor/enrol/confirm', { challenge: otherLogin, code: codeFor(setup, secret) })).status, 409)

  t.same((await call(setup, 'second-factor/enrol/start', { challenge })).body, started.body, 'Ada\'s own enrolment starting again gets the same secret')
  const confirmed = await call(setup, 'second-factor/enrol/confirm', { challenge, code: codeFor(setup, secret) })
  t.equal(confirmed.status, 200, 'the code of the secret Ada scanned confirms it')
  t.same(decodeJwt(String(confirmed.body.auth)).amr, ['pwd', 'otp', 'mfa'])
  setup.clock.nextStep()
  const next = await login(setup, 'ada@example.com')
  t.equal((await call(setup, 'second-factor/verify', { challenge: next.body.challenge, code: codeFor(setup, secret) })).status, 200,
    'and her app\'s codes sign her in from then on')
})

t.test('a pending secret stops blocking other enrolments when it expires: a login\'s with its challenge, a signed-in one\'s after 10 minutes', async (t) => {
  const setup = await setUp(t)
  const { bearer, browser } = await adaToEnrol(setup)
  const first = String((await login(setup, 'ada@example.com')).body.challenge)
  const abandoned = String((await call(setup, 'second-factor/enrol/start', { challenge: first })).body.secret)
  setup.clock.value += 5 * 60_000 // the login's challenge, and with it its enrolment, has expired
  const second = String((await login(setup, 'ada@example.com')).body.challenge)
  const restarted = await call(setup, 'second-factor/enrol/start', { challenge: second })
  t.equal(restarted.status, 200, 'a new sign-in enrols')
  t.not(restarted.body.secret, abandoned, 'with a secret of its own')
  t.equal((await browser.post('reauthenticate', { password: GOOD_PASSWORD }, bearer)).status, 200, 'a fresh proof: only the pending secret stops her')
  t.equal((await browser.post('second-factor/enrol/start', {}, bearer)).status, 409)

  setup.clock.value += 5 * 60_000
  t.equal((await browser.post('reauthenticate', { password: GOOD_PASSWORD }, bearer)).status, 200)
  const byBearer = await browser.post('second-factor/enrol/start', {}, bearer)
  t.equal(byBearer.status, 200, 'once the second sign-in\'s challenge expired too, a signed-in enrolment starts')
  setup.clock.value += 9 * 60_000
  t.equal((await call(setup, 'second-factor/enrol/start', { challenge: String((await login(setup, 'ada@example.com')).body.challenge) })).status, 409,
    'and holds its secret for 10 minutes')
  setup.clock.value += 60_000
  t.equal((await call(setup, 'second-factor/enrol/start', { challenge: String((await login(setup, 'ada@example.com')).body.challenge) })).status, 200)
})

t.test('turned off and on again with the same auth token, the authenticator gets a new key, and the old one confirms nothing', async (t) => {
  const setup = await setUp(t)
  const email = 'leaked-key@example.com'
  const registering = await registerAccount(setup.reference.base, email)
  await verifyAddress(setup.reference.base, setup.reference.dataDir, email, registering)
  const browser = new ServiceBrowser(setup.reference.base)
  const bearer = await browser.bearerAfterSignIn(email)
  const first = String((await browser.post('second-factor/enrol/start', {}, bearer)).body.secret)
  t.equal(String((await browser.post('second-factor/enrol/start', {}, bearer)).body.secret), first, 'a second click of one enrolment: the same key')
  t.equal((await browser.post('second-factor/enrol/confirm', { code: codeFor(setup, first) }, bearer)).status, 200)
  setup.clock.nextStep()
  // The key leaked: the owner turns the factor off (the sign-in is still her fresh proof) and on again at once.
  t.equal((await browser.post('second-factor/remove', {}, bearer)).status, 200, 'turned off')
  setup.clock.nextStep()
  const second = String((await browser.post('second-factor/enrol/start', {}, bearer)).body.secret)
  t.not(second, first, 'a new key, though the auth token is the same')
  t.equal((await browser.post('second-factor/enrol/confirm', { code: codeFor(setup, first) }, bearer)).status, 401, 'the leaked key confirms nothing')
  t.equal((await browser.post('second-factor/enrol/confirm', { code: codeFor(setup, second) }, bearer)).status, 200, 'the new one does')
})
