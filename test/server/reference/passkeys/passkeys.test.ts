import { decodeJwt } from 'jose'
import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { FREE_LOGIN_FAILURES, passkeyThrottleKey } from '../../../../server/reference/sign-in/login-throttles.js'
import { GOOD_PASSWORD, startReference, TEST_PUBLIC_URL, type Reference } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { PasskeyBrowser as Browser } from '../../../fixtures/passkeys/passkey-browser.js'
import { SoftwareAuthenticator, type CeremonyOverrides } from '../../../fixtures/passkeys/software-authenticator.js'

const RP_ID = new URL(TEST_PUBLIC_URL).hostname

interface Setup {
  readonly reference: Reference
  readonly browser: Browser
  readonly authenticator: SoftwareAuthenticator
  readonly auth: string
  readonly accountId: string
  readonly audit: Array<Record<string, unknown>>
}

/** A reference service with an account (password) signed in, its audit lines collected. */
async function setUp (t: Test, options: { countsSignatures?: boolean, env?: Record<string, string> } = {}): Promise<Setup> {
  const audit: Array<Record<string, unknown>> = []
  const logStream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as Record<string, unknown>
        if (entry.audit !== undefined) audit.push(entry)
      }
      done()
    }
  })
  const reference = await startReference(t, { logStream, ...(options.env === undefined ? {} : { env: options.env }) })
  await registerAccount(reference.base, 'ada@example.com')
  // Signed in in the browser that then makes the passkey: the sign-in is its fresh proof.
  const browser = new Browser(reference.base)
  const auth = String((await browser.signIn('ada@example.com')).body.auth)
  return {
    reference,
    browser,
    authenticator: new SoftwareAuthenticator(TEST_PUBLIC_URL, { countsSignatures: options.countsSignatures ?? false }),
    auth,
    accountId: decodeJwt(auth).sub!,
    audit
  }
}

/** Registers a passkey for the signed-in account, as the page does after "Create a passkey". */
async function registerPasskey (setup: Setup, overrides: CeremonyOverrides = {}, conditional = false) {
  const options = await setup.browser.registerOptions(setup.auth, conditional)
  const credential = setup.authenticator.create(options, overrides)
  return setup.browser.post('passkeys/register', { credential }, { authorization: `Bearer ${setup.auth}` })
}

async function passkeyLogin (setup: Setup, overrides: CeremonyOverrides = {}, extra: Record<string, unknown> = {}) {
  const options = await setup.browser.loginOptions()
  const credential = setup.authenticator.get(options, overrides)
  return setup.browser.post('passkeys/login', { credential, ...extra })
}

/**
 * The newest passkey audit line. Not simply the newest line: a sign-in's "new browser" email is sent after
 * the answer, and its `browser.notice-sent` line may land after the passkey event the test looks at.
 */
const lastAudit = (setup: Setup) => setup.audit.findLast((line) => String(line.audit).startsWith('passkey.'))!
/** The last audit line of `event` (lines of emails sent after answering may follow it). */
const audited = (setup: Setup, event: string) => setup.audit.findLast((entry) => entry.audit === event)


t.test('a signed-in account registers a passkey and then signs in with it', async (t) => {
  const setup = await setUp(t)
  const { browser, reference } = setup
  const creation = await browser.registerOptions(setup.auth)
  t.equal(creation.rp.id, RP_ID)
  t.equal(creation.rp.name, 'Threshold')
  t.equal(creation.user.name, 'ada@example.com')
  t.match(creation.user.id, /^[\w-]{22}$/, 'the account\'s user handle, 16 random bytes')
  t.same(creation.authenticatorSelection, { residentKey: 'required', requireResidentKey: true, userVerification: 'required' })
  t.same(creation.excludeCredentials, [])
  t.match(browser.value('passkey_challenge'), /^[\w-]{43}$/)

  const credential = setup.authenticator.create(creation)
  const registered = await browser.post('passkeys/register', { credential }, { authorization: `Bearer ${setup.auth}` })
  t.equal(registered.status, 200)
  t.match(registered.body, { success: /passkey has been created/ })
  t.equal(browser.value('passkey_challenge'), undefined, 'the challenge cookie is cleared')
  // Through the edge on http://127.0.0.1, a loopback page over plain http: without Secure (docs/security.md, "Plain http on loopback"; over https it keeps it: test/server/edge/http/loopback-http.test.ts).
  t.match(registered.headers.getSetCookie().join('\n'), /passkey_challenge=; Max-Age=0; Path=\/accounts; HttpOnly; SameSite=Strict/)
  const stored = await reference.services.store.listPasskeys(setup.accountId)
  t.equal(stored.length, 1)
  t.match(stored[0], { id: credential.id, counter: 0, transports: ['internal', 'hybrid'], deviceType: 'multiDevice', backedUp: true, lastUsedAt: null })
  t.match(lastAudit(setup), { audit: 'passkey.register.succeeded', accountId: setup.accountId, conditional: false })
  t.notMatch(JSON.stringify(setup.audit), credential.id, 'the audit log holds no credential')
  t.notMatch(JSON.stringify(setup.audit), creation.challenge, 'no challenge')
  t.notMatch(JSON.stringify(setup.audit), creation.user.id, 'no user handle')

  const request = await browser.loginOptions()
  t.equal(request.rpId, RP_ID)
  t.same(request.allowCredentials, [], 'discoverable: no credential is named')
  t.equal(request.userVerification, 'required')
  const assertion = setup.authenticator.get(request)
  const login = await browser.post('passkeys/login', { credential: assertion })
  t.equal(login.status, 200)
  t.same(Object.keys(login.body).sort(), ['auth', 'credential_ids', 'email', 'name', 'refresh', 'user_id'])
  t.match(login.body, { email: 'ada@example.com', name: 'ada@example.com', user_id: creation.user.id, credential_ids: [credential.id] })
  const claims = decodeJwt(login.body.auth as string)
  t.equal(claims.sub, setup.accountId)
  t.same(claims.amr, ['hwk'], 'the token says a passkey signed in')
  t.equal(browser.value('passkey_challenge'), undefined)
  t.match(login.headers.getSetCookie().join('\n'), /threshold_browser=/, 'the browser is remembered as after a password sign-in')
  t.match(audited(setup, 'passkey.login.succeeded'), { accountId: setup.accountId })
  t.not((await reference.services.store.findPasskey(credential.id))?.lastUsedAt, null, 'the last use is recorded')

  const refreshed = await postJson(reference.base, '/accounts/token/refresh', { refresh: login.body.refresh })
  t.equal(refreshed.status, 200, 'the refresh token works as any login\'s')

  // The passkey sign-in is this browser's session now, and its proof.
  const again = await browser.registerOptions(String(login.body.auth))
  t.same(again.excludeCredentials, [{ id: credential.id, type: 'public-key', transports: ['internal', 'hybrid'] }],
    'the next registration excludes the passkey the account has')
})

t.test('a passkey sign-in keeps the login rules: allowed organisations, and the verified-address rule', async (t) => {
  const setup = await setUp(t, { env: { REQUIRE_VERIFIED_EMAIL: 'false' } })
  t.equal((await registerPasskey(setup)).status, 200)
  const refused = await passkeyLogin(setup, {}, { insecure_allowed_orgs: 'acme' })
  t.equal(refused.status, 403)
  t.match(refused.body, { error: /not a member/ })
  await setup.reference.services.store.addMembership(setup.accountId, 'acme')
  const allowed = await passkeyLogin(setup, {}, { insecure_allowed_orgs: 'acme', resource_type: 'cluster' })
  t.equal(allowed.status, 200)
  t.match(decodeJwt(allowed.body.auth as string), { orgs: ['acme'], resource_type: 'cluster' })
})

t.test('an unknown or removed passkey is refused with unknown_credential and its id, and starts no session', async (t) => {
  const setup = await setUp(t)
  const registered = await registerPasskey(setup)
  t.equal(registered.status, 200)
  const id = setup.authenticator.credentials[0]!.id

  const made = await passkeyLogin(setup, { credentialId: 'bm90LWEtcmVhbC1jcmVkZW50aWFs' })
  t.equal(made.status, 401)
  t.same(made.body, {
    error: 'This passkey is not registered here. It may have been removed. Sign in with your password.',
    reason: 'unknown_credential',
    credential_id: 'bm90LWEtcmVhbC1jcmVkZW50aWFs'
  })
  t.match(lastAudit(setup), { audit: 'passkey.login.failed', reason: 'unknown-credential' })

  t.equal(await setup.reference.services.store.removePasskey(setup.accountId, id), true)
  const removed = await passkeyLogin(setup)
  t.equal(removed.status, 401)
  t.same(removed.body, { error: removed.body.error, reason: 'unknown_credential', credential_id: id })
  t.equal(setup.browser.value('passkey_challenge'), undefined, 'the spent challenge\'s cookie is cleared')
})

t.test('a challenge works once, only in the browser that asked, and only for what it was asked for', async (t) => {
  const setup = await setUp(t)
  t.equal((await registerPasskey(setup)).status, 200)
  const { browser, authenticator } = setup

  const options = await browser.loginOptions()
  const assertion = authenticator.get(options)
  const binding = browser.value('passkey_challenge')!
  const signedIn = await browser.post('passkeys/login', { credential: assertion })
  t.equal(signedIn.status, 200)
  browser.keep('passkey_challenge', binding)
  const replayed = await browser.post('passkeys/login', { credential: assertion })
  t.equal(replayed.status, 400, 'the same response with the same cookie again')
  t.match(replayed.body, { error: /expired or was started in another browser/ })
  t.notOk('auth' in replayed.body)
  t.match(lastAudit(setup), { audit: 'passkey.login.failed', reason: 'no-challenge' })

  const other = new Browser(setup.reference.base)
  const fresh = await browser.loginOptions()
  const noCookie = await other.post('passkeys/login', { credential: authenticator.get(fresh) })
  t.equal(noCookie.status, 400, 'a response posted without the cookie of the browser that asked')

  // Another browser's cookie, with a response to this browser's challenge.
  await other.loginOptions()
  const mine = await browser.loginOptions()
  const crossed = await other.post('passkeys/login', { credential: authenticator.get(mine) })
  t.equal(crossed.status, 401, 'the other browser\'s challenge is not the one signed')
  t.match(lastAudit(setup), { audit: 'passkey.login.failed', reason: 'challenge' })

  // A registration challenge does not serve a sign-in (asked for by the browser's newest session, whose proof it holds).
  await browser.registerOptions(String(signedIn.body.auth))
  const wrongPurpose = await browser.post('passkeys/login', { credential: authenticator.get({ challenge: 'x', rpId: RP_ID }) })
  t.equal(wrongPurpose.status, 400)
})

t.test('foreign origins, foreign RP IDs and missing user verification are refused, and nothing is stored', async (t) => {
  const setup = await setUp(t)
  const { reference } = setup
  for (const [overrides, reason] of [
    [{ origin: 'https://evil.example' }, 'origin'],
    [{ rpId: 'evil.example' }, 'rp-id'],
    [{ userVerified: false }, 'user-verification'],
    [{ userPresent: false, userVerified: false }, 'user-presence'],
    [{ type: 'webauthn.get' }, 'type']
  ] as const) {
    const refused = await registerPasskey(setup, overrides)
    t.equal(refused.status, 400, `registration with ${JSON.stringify(overrides)}`)
    t.match(lastAudit(setup), { audit: 'passkey.register.refused', reason })
  }
  t.same(await reference.services.store.listPasskeys(setup.accountId), [], 'no passkey was stored')

  t.equal((await registerPasskey(setup)).status, 200)
  for (const [overrides, reason] of [
    [{ origin: 'https://evil.example' }, 'origin'],
    [{ rpId: 'evil.example' }, 'rp-id'],
    [{ userVerified: false }, 'user-verification'],
    [{ userPresent: false, userVerified: false }, 'user-presence'],
    [{ userHandle: 'AAAAAAAAAAAAAAAAAAAAAA' }, 'user-handle'],
    [{ type: 'webauthn.create' }, 'type']
  ] as const) {
    const refused = await passkeyLogin(setup, overrides)
    t.equal(refused.status, 401, `sign-in with ${JSON.stringify(overrides)}`)
    t.same(Object.keys(refused.body), ['error'], 'no tokens')
    t.match(lastAudit(setup), { audit: 'passkey.login.failed', reason })
    await reference.services.store.clearLoginFailures(passkeyThrottleKey('127.0.0.1'))
  }
  t.equal((await reference.services.store.listPasskeys(setup.accountId))[0]!.lastUsedAt, null, 'no sign-in was recorded')
})

t.test('a related origin (PASSKEY_RELATED_ORIGINS) may sign in; others may not', async (t) => {
  const setup = await setUp(t, { env: { PASSKEY_RELATED_ORIGINS: 'https://login.example.org' } })
  t.equal((await registerPasskey(setup)).status, 200)
  t.equal((await passkeyLogin(setup, { origin: 'https://login.example.org' })).status, 200)
  t.equal((await passkeyLogin(setup, { origin: 'https://login.example.net' })).status, 401)
})

t.test('a signature counter that does not rise is refused (a cloned authenticator)', async (t) => {
  const setup = await setUp(t, { countsSignatures: true })
  t.equal((await registerPasskey(setup)).status, 200)
  t.equal((await passkeyLogin(setup, { counter: 5 })).status, 200)
  t.equal((await setup.reference.services.store.listPasskeys(setup.accountId))[0]!.counter, 5)
  const backwards = await passkeyLogin(setup, { counter: 3 })
  t.equal(backwards.status, 401)
  t.match(lastAudit(setup), { audit: 'passkey.login.failed', reason: 'counter' })
  t.equal((await passkeyLogin(setup, { counter: 5 })).status, 401, 'the same counter again')
  t.equal((await passkeyLogin(setup, { counter: 6 })).status, 200)
})

t.test('only a registration asked for as conditional is accepted without user presence or verification', async (t) => {
  const setup = await setUp(t)
  const creation = await setup.browser.registerOptions(setup.auth, true)
  t.equal(creation.authenticatorSelection?.userVerification, 'preferred', 'a conditional create cannot prompt')
  const credential = setup.authenticator.create(creation, { userPresent: false, userVerified: false })
  const accepted = await setup.browser.post('passkeys/register', { credential }, { authorization: `Bearer ${setup.auth}` })
  t.equal(accepted.status, 200)
  t.match(lastAudit(setup), { audit: 'passkey.register.succeeded', conditional: true })

  const modal = await registerPasskey(setup, { userPresent: false, userVerified: false }, false)
  t.equal(modal.status, 400, 'the same without conditional: refused')
  t.equal((await setup.reference.services.store.listPasskeys(setup.accountId)).length, 1)
  setup.authenticator.credentials.pop() // the refused one, which the browser keeps and the service never stored
  t.equal((await passkeyLogin(setup)).status, 200, 'the conditional passkey signs in (with verification, as every sign-in)')
})

t.test('registration needs the account\'s own auth token and a challenge issued to that account', async (t) => {
  const setup = await setUp(t)
  const { browser, reference } = setup
  const badHeaders: Array<Record<string, string>> = [{}, { authorization: 'Bearer not-a-token' }, { authorization: `Bearer ${setup.auth}x` }]
  for (const headers of badHeaders) {
    const options = await browser.post('passkeys/register/options', {}, headers)
    t.equal(options.status, 401)
    t.match(options.body, { error: 'Please sign in again to create a passkey.' })
  }
  t.match(lastAudit(setup), { audit: 'passkey.register.refused', reason: 'not-signed-in' })
  t.equal((await browser.post('passkeys/register/options', { conditional: 'yes' }, { authorization: `Bearer ${setup.auth}` })).status, 400)

  await registerAccount(reference.base, 'eve@example.com')
  const eve = await loginTokens(reference.base, 'eve@example.com', GOOD_PASSWORD)
  const options = await browser.registerOptions(setup.auth)
  const credential = setup.authenticator.create(options)
  const crossed = await browser.post('passkeys/register', { credential }, { authorization: `Bearer ${eve.auth}` })
  t.equal(crossed.status, 400, 'Ada\'s challenge does not register a passkey for Eve')
  t.equal((await browser.post('passkeys/register', { credential }, {})).status, 401)
  t.same(await reference.services.store.listPasskeys(setup.accountId), [])
})

t.test('malformed and oversized bodies are refused before any work', async (t) => {
  const setup = await setUp(t)
  t.equal((await registerPasskey(setup)).status, 200)
  const good = setup.authenticator.get(await setup.browser.loginOptions())
  const malformed: unknown[] = [
    {},
    { credential: 'x' },
    { credential: [] },
    { credential: { ...good, id: 'not base64url!' } },
    { credential: { ...good, rawId: 'other' } },
    { credential: { ...good, type: 'password' } },
    { credential: { ...good, response: { ...good.response, signature: 5 } } },
    { credential: { ...good, response: { ...good.response, userHandle: undefined } } },
    { credential: { ...good, id: 'A'.repeat(1365), rawId: 'A'.repeat(1365) } }
  ]
  for (const body of malformed) {
    const answer = await setup.browser.post('passkeys/login', body)
    t.equal(answer.status, 400, JSON.stringify(body).slice(0, 80))
    t.same(answer.body, { error: 'This passkey response is malformed.' })
  }
  const registration = await setup.browser.post('passkeys/register', { credential: { id: 'abc', rawId: 'abc', type: 'public-key', response: {} } },
    { authorization: `Bearer ${setup.auth}` })
  t.equal(registration.status, 400)
  const oversized = await setup.browser.post('passkeys/login', { credential: { ...good, response: { ...good.response, signature: 'A'.repeat(20_000) } } })
  t.equal(oversized.status, 413, 'the edge refuses a body over 16 KiB')
  t.equal((await setup.browser.post('passkeys/login', { credential: good })).status, 200, 'the challenge survived the refusals above')
})

t.test(`a flood of made-up credentials from one address range is locked after ${FREE_LOGIN_FAILURES} failures`, async (t) => {
  const setup = await setUp(t)
  t.equal((await registerPasskey(setup)).status, 200)
  for (let attempt = 1; attempt <= FREE_LOGIN_FAILURES; attempt++) {
    t.equal((await passkeyLogin(setup, { credentialId: `bWFkZS11cC0${attempt}` })).status, 401)
  }
  const locked = await passkeyLogin(setup, { credentialId: 'bWFkZS11cC01' })
  t.equal(locked.status, 401, 'the failure that sets the lock')
  const refused = await passkeyLogin(setup)
  t.equal(refused.status, 429, 'then even the right passkey waits')
  t.match(refused.body, { error: /Too many failed attempts/ })
  t.match(lastAudit(setup), { audit: 'passkey.login.throttled' })
  const password = await postJson(setup.reference.base, '/accounts/v2/login', { email: 'ada@example.com', password: GOOD_PASSWORD })
  t.equal(password.status, 200, 'password sign-ins are not locked by it')
})

t.test('figures: a passkey sign-in through the edge, options and assertion (printed, never judged)', async (t) => {
  const setup = await setUp(t)
  t.equal((await registerPasskey(setup)).status, 200)
  const durations: number[] = []
  for (let round = 0; round < 30; round++) {
    const started = performance.now()
    const answer = await passkeyLogin(setup)
    durations.push(performance.now() - started)
    t.equal(answer.status, 200)
  }
  durations.sort((a, b) => a - b)
  t.comment(`passkey sign-in (options + login, over HTTP through the edge, SQLite): median ${durations[15]!.toFixed(1)} ms, slowest ${durations.at(-1)!.toFixed(1)} ms of 30`)
})
