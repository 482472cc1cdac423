import { decodeJwt } from 'jose'
import t, { type Test } from 'tap'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { GOOD_PASSWORD, logCollector, startReference, TEST_PUBLIC_URL, type Reference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount, verifyAddress } from '../../../fixtures/registration/registration.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'

/*
 * The attack replayed: someone who once held the owner's fresh proof (her
 * browser for a minute, or its proof cookie) registered his own passkey on
 * her account and signs in with it. The owner finds the passkey and removes
 * it: his session must end with it, not refresh for its 14 days.
 */

interface Setup {
  readonly reference: Reference
  readonly logs: ReturnType<typeof logCollector>
  /** Ada's browser, signed in with her password: its sign-in is her fresh proof. */
  readonly owner: PasskeyBrowser
  readonly ownerBearer: { authorization: string }
  readonly accountId: string
}

async function setUp (t: Test): Promise<Setup> {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream })
  await verifyAddress(reference.base, reference.dataDir, 'ada@example.com', await registerAccount(reference.base, 'ada@example.com'))
  const owner = new PasskeyBrowser(reference.base)
  const ownerBearer = await owner.bearerAfterSignIn('ada@example.com')
  return { reference, logs, owner, ownerBearer, accountId: decodeJwt(ownerBearer.authorization.slice('Bearer '.length)).sub! }
}

/** Registers a passkey of `authenticator` on Ada's account from `browser`, with her token; its credential id. */
async function registerPasskey (setup: Setup, browser: PasskeyBrowser, authenticator: SoftwareAuthenticator): Promise<string> {
  const options = await browser.registerOptions(setup.ownerBearer.authorization.slice('Bearer '.length))
  const credential = authenticator.create(options)
  const registered = await browser.post('passkeys/register', { credential }, setup.ownerBearer)
  if (registered.status !== 200) throw new Error(`registration: ${registered.status} ${JSON.stringify(registered.body)}`)
  return credential.id
}

/** A passkey sign-in in `browser`: its auth and refresh tokens. */
async function signInWithPasskey (browser: PasskeyBrowser, authenticator: SoftwareAuthenticator): Promise<{ auth: string, refresh: string }> {
  const answer = await browser.post('passkeys/login', { credential: authenticator.get(await browser.loginOptions()) })
  if (answer.status !== 200) throw new Error(`passkey sign-in: ${answer.status} ${JSON.stringify(answer.body)}`)
  return { auth: String(answer.body.auth), refresh: String(answer.body.refresh) }
}

const refresh = async (setup: Setup, token: string) => await postJson(setup.reference.base, '/accounts/token/refresh', { refresh: token })

t.test('the owner removes an intruder\'s passkey: his refreshed session is refused and his token changes nothing; hers go on', async (t) => {
  const setup = await setUp(t)
  // The intruder, with the owner's token and her proof cookie, registers his own authenticator's passkey.
  const intruder = new PasskeyBrowser(setup.reference.base)
  intruder.keep('threshold_proof', setup.owner.value('threshold_proof')!)
  const intrudersKey = new SoftwareAuthenticator(TEST_PUBLIC_URL)
  const intrudersPasskey = await registerPasskey(setup, intruder, intrudersKey)
  // The owner has a passkey of her own, and a session it started.
  const ownersKey = new SoftwareAuthenticator(TEST_PUBLIC_URL)
  await registerPasskey(setup, setup.owner, ownersKey)
  const ownersPasskeySession = await signInWithPasskey(new PasskeyBrowser(setup.reference.base), ownersKey)

  // Later, from his own browser, he signs in with his passkey; his session refreshes as any does.
  const intrudersSignIn = await signInWithPasskey(intruder, intrudersKey)
  const intrudersSession = decodeJwt(intrudersSignIn.auth).sid
  const refreshed = await refresh(setup, intrudersSignIn.refresh)
  t.equal(refreshed.status, 200, 'before the removal, his session refreshes')
  const intruderBearer = { authorization: `Bearer ${String(refreshed.body.auth)}` }
  t.equal(decodeJwt(String(refreshed.body.auth)).sid, intrudersSession, 'the same session after the refresh')

  const removed = await setup.owner.post('passkeys/remove', { id: intrudersPasskey }, setup.ownerBearer)
  t.equal(removed.status, 200, 'the owner removes his passkey')

  const refused = await refresh(setup, String(refreshed.body.refresh))
  t.equal(refused.status, 401, 'his refresh token, rotated once since the sign-in, is refused')
  for (const [path, body] of [['passkeys/register/options', { conditional: false }], ['second-factor/enrol/start', {}], ['sessions/end-others', {}]] as const) {
    const change = await intruder.post(path, body, intruderBearer)
    t.equal(change.status, 401, `${path}: his auth token is refused at once`)
    t.match(change.body, { reason: 'session_ended' })
  }
  t.equal((await intruder.post('passkeys/login', { credential: intrudersKey.get(await intruder.loginOptions()) })).status, 401,
    'the passkey itself signs in no more')

  t.equal((await refresh(setup, ownersPasskeySession.refresh)).status, 200, 'the session of her own passkey goes on')
  t.equal((await setup.owner.post('passkeys/reauthenticate/options', {}, setup.ownerBearer)).status, 200, 'her password session goes on')
  t.match(setup.logs.lines.findLast((line) => line.audit === 'passkey.removed'), { accountId: setup.accountId, sessionsEnded: 1 })
})

t.test('every session the passkey started ends, and only the owner\'s proof removes it', async (t) => {
  const setup = await setUp(t)
  const key = new SoftwareAuthenticator(TEST_PUBLIC_URL)
  const passkey = await registerPasskey(setup, setup.owner, key)
  const sessions = [
    await signInWithPasskey(new PasskeyBrowser(setup.reference.base), key),
    await signInWithPasskey(new PasskeyBrowser(setup.reference.base), key)
  ]
  // A token holder in another browser, without the proof, cannot remove it (docs/account-changes.md).
  t.equal((await new PasskeyBrowser(setup.reference.base).post('passkeys/remove', { id: passkey }, setup.ownerBearer)).status, 403)
  for (const session of sessions) t.equal((await refresh(setup, session.refresh)).status, 200, 'still live before the removal')

  t.equal((await setup.owner.post('passkeys/remove', { id: passkey }, setup.ownerBearer)).status, 200)
  // Each session refreshed once above: the tokens it holds now are the rotated ones, whose families are revoked.
  const { store } = setup.reference.services
  for (const session of sessions) {
    t.equal(await store.isRefreshFamilyLive(String(decodeJwt(session.auth).sid), Date.now()), false, 'the session has ended')
  }
  t.match(setup.logs.lines.findLast((line) => line.audit === 'passkey.removed'), { sessionsEnded: 2 })
})

t.test('after a reset, the intruder signs in with his passkey again; removing it from the reset\'s list ends that session too', async (t) => {
  const setup = await setUp(t)
  const { base, dataDir } = setup.reference
  const intruder = new PasskeyBrowser(base)
  intruder.keep('threshold_proof', setup.owner.value('threshold_proof')!)
  const intrudersKey = new SoftwareAuthenticator(TEST_PUBLIC_URL)
  const intrudersPasskey = await registerPasskey(setup, intruder, intrudersKey)

  // The owner resets her password: every session ends, and the page lists what was added lately.
  t.equal((await postJson(base, '/accounts/resetPasswordRequest', { email: 'ada@example.com' })).status, 200)
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  const reset = await postJson(base, '/accounts/resetPassword', { token, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
  t.equal(reset.status, 200)
  // Before she removes it, his passkey still signs in: a new session.
  const again = await signInWithPasskey(intruder, intrudersKey)
  t.equal((await refresh(setup, again.refresh)).status, 200, 'his new session refreshes')

  const removed = await postJson(base, '/accounts/recentFactors/remove', { review_token: reset.body.review_token, passkey_id: intrudersPasskey })
  t.equal(removed.status, 200, 'the owner removes it from the list')
  const live = await setup.reference.services.store.isRefreshFamilyLive(String(decodeJwt(again.auth).sid), Date.now())
  t.equal(live, false, 'the session it started after the reset has ended')
  const change = await intruder.post('second-factor/enrol/start', {}, { authorization: `Bearer ${again.auth}` })
  t.same([change.status, change.body.reason], [401, 'session_ended'], 'and his auth token changes nothing')
})
