import { randomBytes } from 'node:crypto'
import { decodeJwt } from 'jose'
import { Secret, TOTP } from 'otpauth'
import t, { type Test } from 'tap'
import { FRESH_PROOF_WINDOW_MS } from '../../../../server/reference/account-changes/proof-cookie.js'
import { googleNonceFor } from '../../../../server/reference/google/google-id-token.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { startReference, TEST_PUBLIC_URL, type Reference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'
import { Clock } from '../../../fixtures/account-changes/account-changes.js'

/*
 * The attacks of docs/account-changes.md, replayed: whoever reads a visitor's
 * `auth` cookie once holds a bearer token for 15 minutes, and nothing else.
 */

interface Setup {
  readonly reference: Reference
  readonly clock: Clock
  /** Ada's own browser, signed in with her password. */
  readonly owner: PasskeyBrowser
  /** Ada's auth token, as the attacker read it from her cookie. */
  readonly bearer: { authorization: string }
  /** The attacker's browser: the token and nothing else. */
  readonly attacker: PasskeyBrowser
  readonly authenticator: SoftwareAuthenticator
}

async function setUp (t: Test): Promise<Setup> {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  await registerAccount(reference.base, 'ada@example.com')
  const owner = new PasskeyBrowser(reference.base)
  const bearer = await owner.bearerAfterSignIn('ada@example.com')
  return {
    reference, clock, owner, bearer, attacker: new PasskeyBrowser(reference.base), authenticator: new SoftwareAuthenticator(TEST_PUBLIC_URL)
  }
}

const auth = (setup: Setup): string => setup.bearer.authorization.slice('Bearer '.length)

async function accountId (setup: Setup): Promise<string> {
  return (await setup.reference.services.store.findAccountByEmail('ada@example.com'))!.id
}

/** A passkey registration through the calls the page makes, in `browser`. */
async function registerPasskey (setup: Setup, browser: PasskeyBrowser, conditional = false) {
  const options = await browser.post('passkeys/register/options', { conditional }, setup.bearer)
  if (options.status !== 200) return options
  const credential = setup.authenticator.create(options.body.options as never, conditional ? { userVerified: false } : {})
  return await browser.post('passkeys/register', { credential, conditional }, setup.bearer)
}

t.test('a bearer token alone cannot register a passkey, nor start an authenticator enrolment', async (t) => {
  const setup = await setUp(t)
  for (const conditional of [false, true]) {
    const refused = await setup.attacker.post('passkeys/register/options', { conditional }, setup.bearer)
    t.equal(refused.status, 403, `conditional: ${conditional}`)
    t.match(refused.body, { reason: 'fresh_proof_required', proof_methods: ['password', 'sign_in'], error: /confirm it's you/ })
  }
  const enrolment = await setup.attacker.post('second-factor/enrol/start', {}, setup.bearer)
  t.equal(enrolment.status, 403)
  t.match(enrolment.body, { reason: 'fresh_proof_required' })
  t.notOk('secret' in enrolment.body, 'no secret handed out')
  t.same(await setup.reference.services.store.listPasskeys(await accountId(setup)), [])
  t.equal(await setup.reference.services.store.findSecondFactor(await accountId(setup)), null)
})

t.test('the upgrade right after a password sign-in needs no extra step, once, in that browser only', async (t) => {
  const setup = await setUp(t)
  t.equal((await registerPasskey(setup, setup.owner, true)).status, 200, 'the prompt-less passkey of the sign-in')
  const again = await registerPasskey(setup, setup.owner, true)
  t.equal(again.status, 403, 'a second prompt-less registration')
  t.match(again.body, { reason: 'fresh_proof_required' })
  t.equal((await registerPasskey(setup, setup.owner, false)).status, 200, 'one with a prompt, within the window: the sign-in still counts')
  t.equal((await setup.reference.services.store.listPasskeys(await accountId(setup))).length, 2)
})

t.test('after the window, a change asks for the password again; the proof holds only in its browser', async (t) => {
  const setup = await setUp(t)
  setup.clock.value += FRESH_PROOF_WINDOW_MS + 1000
  const late = await registerPasskey(setup, setup.owner)
  t.equal(late.status, 403)
  t.match(late.body, { reason: 'fresh_proof_required' })

  const wrong = await setup.owner.post('reauthenticate', { password: 'not the password at all' }, setup.bearer)
  t.equal(wrong.status, 401)
  t.notOk(wrong.headers.getSetCookie().some((cookie) => cookie.startsWith('threshold_proof=')), 'no proof for a wrong password')
  const proven = await setup.owner.post('reauthenticate', { password: 'correct horse battery staple' }, setup.bearer)
  t.equal(proven.status, 200)
  // Through the edge on http://127.0.0.1, a loopback page over plain http: without Secure (docs/security.md, "Plain http on loopback"; over https it keeps it: test/server/edge/http/loopback-http.test.ts).
  t.match(proven.headers.getSetCookie().find((cookie) => cookie.startsWith('threshold_proof=')),
    /^threshold_proof=[\w-]{43}; Max-Age=300; Path=\/accounts; HttpOnly; SameSite=Strict$/)
  t.equal((await registerPasskey(setup, setup.owner)).status, 200, 'the change goes through after the password')
  t.equal((await registerPasskey(setup, setup.attacker)).status, 403, 'the owner\'s proof is no use to another browser')
  t.equal((await registerPasskey(setup, setup.owner, true)).status, 403, 'a proof given again is not a sign-in: no prompt-less passkey')
})

t.test('wrong passwords given again lock like a login\'s: the token holder cannot guess on', async (t) => {
  const setup = await setUp(t)
  const statuses: number[] = []
  for (let attempt = 0; attempt < 6; attempt++) {
    statuses.push((await setup.attacker.post('reauthenticate', { password: `guess number ${attempt}` }, setup.bearer)).status)
  }
  t.same(statuses, [401, 401, 401, 401, 401, 429])
  const locked = await setup.attacker.post('reauthenticate', { password: 'correct horse battery staple' }, setup.bearer)
  t.equal(locked.status, 429, 'even the right password waits out the lock')
  t.equal((await setup.attacker.post('reauthenticate', {}, setup.bearer)).status, 400, 'nothing to check')
  t.equal((await setup.attacker.post('reauthenticate', { password: 'x' })).status, 401, 'no token')
})

t.test('a logged-out session\'s token is refused at once, not after its 15 minutes', async (t) => {
  const setup = await setUp(t)
  const claims = decodeJwt(auth(setup))
  t.type(claims.sid, 'string', 'the token names its session')
  t.type(claims.auth_time, 'number')
  // A second session, in another browser, that then logs out: its browser still holds its proof.
  const elsewhere = new PasskeyBrowser(setup.reference.base)
  const signedIn = await elsewhere.signIn('ada@example.com')
  const refresh = String(signedIn.body.refresh)
  const second = { authorization: `Bearer ${String(signedIn.body.auth)}` }
  t.equal((await postJson(setup.reference.base, '/accounts/token/revoke', { refresh })).status, 200, 'logged out')
  const refused = await elsewhere.post('passkeys/register/options', { conditional: false }, second)
  t.equal(refused.status, 401)
  t.match(refused.body, { reason: 'session_ended', error: /session has ended/ })
  t.equal((await elsewhere.post('second-factor/enrol/start', {}, second)).status, 401)
  t.equal((await elsewhere.post('reauthenticate', { password: 'correct horse battery staple' }, second)).status, 401,
    'nor can it prove anything again')
  t.equal((await registerPasskey(setup, setup.owner)).status, 200, 'the other session lives on')
  const withOwnersProof = await setup.owner.post('passkeys/register/options', { conditional: false }, second)
  t.equal(withOwnersProof.status, 401, 'the ended session\'s token is refused even beside a live proof')
})

t.test('sessions ended by the owner or a reset take their tokens and proofs with them', async (t) => {
  const setup = await setUp(t)
  const { store } = setup.reference.services
  await store.revokeAccountRefreshTokens(await accountId(setup), setup.clock.value)
  const refused = await registerPasskey(setup, setup.owner)
  t.equal(refused.status, 401)
  t.match(refused.body, { reason: 'session_ended' })
})

t.test('auth_time is the sign-in\'s and survives refreshes; sid stays the session\'s', async (t) => {
  const setup = await setUp(t)
  const signedIn = await setup.owner.signIn('ada@example.com')
  const first = decodeJwt(String(signedIn.body.auth))
  setup.clock.value += 60_000
  const refreshed = await postJson(setup.reference.base, '/accounts/token/refresh', { refresh: signedIn.body.refresh })
  const next = decodeJwt(String(refreshed.body.auth))
  t.equal(next.auth_time, first.auth_time)
  t.equal(next.sid, first.sid)
  t.not(decodeJwt(auth(setup)).sid, first.sid, 'each sign-in is a session of its own')
})

t.test('a passkey proves the account again, and a code does', async (t) => {
  const setup = await setUp(t)
  t.equal((await registerPasskey(setup, setup.owner)).status, 200)
  setup.clock.value += FRESH_PROOF_WINDOW_MS + 1000
  t.match((await registerPasskey(setup, setup.owner)).body, { reason: 'fresh_proof_required', proof_methods: ['password', 'passkey', 'sign_in'] })

  const options = await setup.owner.post('passkeys/reauthenticate/options', {}, setup.bearer)
  t.equal(options.status, 200)
  t.equal((options.body.options as { allowCredentials: unknown[] }).allowCredentials.length, 1, 'only the account\'s own passkeys')
  const unverified = setup.authenticator.get(options.body.options as never, { userVerified: false })
  t.equal((await setup.owner.post('passkeys/reauthenticate', { credential: unverified }, setup.bearer)).status, 401, 'user verification is required')
  const fresh = await setup.owner.post('passkeys/reauthenticate/options', {}, setup.bearer)
  const assertion = setup.authenticator.get(fresh.body.options as never)
  t.equal((await setup.owner.post('passkeys/reauthenticate', { credential: assertion }, setup.bearer)).status, 200)
  t.equal((await setup.owner.post('second-factor/enrol/start', {}, setup.bearer)).status, 200, 'the passkey was proof enough')
})

t.test('turning the second factor off and renewing recovery codes need a proof; an organisation\'s requirement stays', async (t) => {
  const setup = await setUp(t)
  const started = await setup.owner.post('second-factor/enrol/start', {}, setup.bearer)
  const secret = String(started.body.secret)
  const code = (): string => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: setup.clock.value })
  const confirmed = await setup.owner.post('second-factor/enrol/confirm', { code: code() }, setup.bearer)
  t.equal(confirmed.status, 200)
  const oldCodes = confirmed.body.recovery_codes as string[]

  t.equal((await setup.attacker.post('second-factor/remove', {}, setup.bearer)).status, 403, 'not with the token alone')
  t.equal((await setup.attacker.post('second-factor/recovery-codes', {}, setup.bearer)).status, 403)

  const renewed = await setup.owner.post('second-factor/recovery-codes', {}, setup.bearer)
  t.equal(renewed.status, 200)
  const newCodes = renewed.body.recovery_codes as string[]
  t.equal(newCodes.length, 10)
  setup.clock.value += FRESH_PROOF_WINDOW_MS + 1000
  const password = 'correct horse battery staple'
  t.equal((await setup.owner.post('reauthenticate', { password, recovery_code: oldCodes[0] }, setup.bearer)).status, 401, 'the old codes no longer work')
  t.equal((await setup.owner.post('reauthenticate', { password, recovery_code: newCodes[0] }, setup.bearer)).status, 200, 'a new one proves the account')

  const { store } = setup.reference.services
  await store.addMembership(await accountId(setup), 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)
  t.equal((await setup.owner.post('second-factor/remove', {}, setup.bearer)).status, 409, 'required by the organisation')
  await store.setOrganizationRequiresSecondFactor('acme', false)
  const removed = await setup.owner.post('second-factor/remove', {}, setup.bearer)
  t.equal(removed.status, 200)
  t.equal(await store.findSecondFactor(await accountId(setup)), null)
  t.same(Object.keys((await setup.owner.signIn('ada@example.com')).body).sort(), ['auth', 'refresh'], 'sign-ins ask for no code any more')
})

t.test('a removed passkey signs in no more; removing one needs a proof', async (t) => {
  const setup = await setUp(t)
  t.equal((await registerPasskey(setup, setup.owner)).status, 200)
  const [passkey] = await setup.reference.services.store.listPasskeys(await accountId(setup))
  t.equal((await setup.attacker.post('passkeys/remove', { id: passkey!.id }, setup.bearer)).status, 403, 'not with the token alone')
  t.equal((await setup.owner.post('passkeys/remove', { id: 'no such passkey!' }, setup.bearer)).status, 400)
  t.equal((await setup.owner.post('passkeys/remove', { id: 'bm90LWhlcmU' }, setup.bearer)).status, 404)
  t.equal((await setup.owner.post('passkeys/remove', { id: passkey!.id }, setup.bearer)).status, 200)
  const signIn = await setup.owner.loginOptions()
  const login = await setup.owner.post('passkeys/login', { credential: setup.authenticator.get(signIn) })
  t.equal(login.status, 401)
})

t.test('a Google token the page did not ask for signs in but proves nothing of the browser: no passkey from a sibling product\'s token', async (t) => {
  const google = await startGoogleStandIn(t)
  const { base } = await startReference(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  const token = async (nonceSecret?: string) => ({
    authorization: `Bearer ${await google.credential({ email: 'gil@gmail.example', sub: 'gil-google', ...nonceSecret === undefined ? {} : { nonce: googleNonceFor(nonceSecret) } })}`
  })
  const registration = randomBytes(32).toString('base64url')
  t.equal((await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE', google_nonce_secret: registration }, await token(registration))).status, 200)

  // The attacker read a nonce-less ID token for the same Google client from another product's page.
  const attacker = new PasskeyBrowser(base)
  const signedIn = await attacker.post('v2/auth/login', { login_method: 'GOOGLE' }, await token())
  t.equal(signedIn.status, 200, 'it signs in (GOOGLE_REQUIRE_NONCE is off)')
  t.notOk(signedIn.headers.getSetCookie().some((cookie) => cookie.startsWith('threshold_proof=')), 'but leaves no proof in his browser')
  const bearer = { authorization: `Bearer ${String(signedIn.body.auth)}` }
  const refused = await attacker.post('passkeys/register/options', { conditional: false }, bearer)
  t.equal(refused.status, 403, 'so no passkey of his own')
  t.match(refused.body, { reason: 'fresh_proof_required' })
  t.equal((await attacker.post('second-factor/enrol/start', {}, bearer)).status, 403, 'nor an authenticator app')

  // Gil, on the page, whose sign-in carried the page's nonce.
  const gil = new PasskeyBrowser(base)
  const pageSecret = randomBytes(32).toString('base64url')
  const own = await gil.post('v2/auth/login', { login_method: 'GOOGLE', google_nonce_secret: pageSecret }, await token(pageSecret))
  t.ok(own.headers.getSetCookie().some((cookie) => cookie.startsWith('threshold_proof=')), 'the page\'s own sign-in is a proof')
  const gilBearer = { authorization: `Bearer ${String(own.body.auth)}` }
  t.equal((await gil.post('passkeys/register/options', { conditional: false }, gilBearer)).status, 200)

  // With an authenticator app, the code step that follows a nonce-less token proves no more than the token did.
  const secret = String((await gil.post('second-factor/enrol/start', {}, gilBearer)).body.secret)
  const code = (at: number): string => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at })
  t.equal((await gil.post('second-factor/enrol/confirm', { code: code(Date.now()) }, gilBearer)).status, 200)
  const stepped = await attacker.post('v2/auth/login', { login_method: 'GOOGLE' }, await token())
  t.equal(stepped.body.second_factor, 'code')
  const verified = await attacker.post('second-factor/verify', { challenge: stepped.body.challenge, code: code(Date.now() + 30_000), remember_browser: false })
  t.equal(verified.status, 200)
  t.notOk(verified.headers.getSetCookie().some((cookie) => cookie.startsWith('threshold_proof=')), 'no proof after the code step either')
})
