import { decodeJwt } from 'jose'
import t, { type Test } from 'tap'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { logCollector, startReference, type Reference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

/*
 * `sessions/end-others` (docs/account-changes.md#ending-the-other-sessions):
 * after a factor changes, the owner signs out of every other session; her
 * own goes on. Replayed as the case it answers: someone else is signed in
 * to her account in another browser.
 */

interface SignedIn {
  readonly browser: PasskeyBrowser
  readonly bearer: { authorization: string }
  readonly refresh: string
}

async function setUp (t: Test) {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream })
  await registerAccount(reference.base, 'ada@example.com')
  await registerAccount(reference.base, 'bo@example.com')
  return { reference, logs }
}

/** A password sign-in in a browser of its own. */
async function signIn (reference: Reference, email: string): Promise<SignedIn> {
  const browser = new PasskeyBrowser(reference.base)
  const answer = await browser.signIn(email)
  if (answer.status !== 200) throw new Error(`sign-in: ${answer.status} ${JSON.stringify(answer.body)}`)
  return { browser, bearer: { authorization: `Bearer ${String(answer.body.auth)}` }, refresh: String(answer.body.refresh) }
}

const refresh = async (reference: Reference, token: string) => await postJson(reference.base, '/accounts/token/refresh', { refresh: token })

t.test('ending the other sessions keeps the caller\'s session and ends every other one of the account, at once', async (t) => {
  const { reference, logs } = await setUp(t)
  const owner = await signIn(reference, 'ada@example.com')
  const intruder = await signIn(reference, 'ada@example.com')
  const laptop = await signIn(reference, 'ada@example.com')
  const bo = await signIn(reference, 'bo@example.com')
  // The intruder's session has refreshed since its sign-in: its newest tokens are what he holds.
  const intrudersTokens = await refresh(reference, intruder.refresh)
  t.equal(intrudersTokens.status, 200)

  // No proof is asked: the owner's browser drops its own before the call.
  owner.browser.forget('threshold_proof')
  const ended = await owner.browser.post('sessions/end-others', {}, owner.bearer)
  t.equal(ended.status, 200)
  t.same(ended.body, { success: 'You have been signed out of all other sessions. This one stays signed in.' })

  t.equal((await refresh(reference, String(intrudersTokens.body.refresh))).status, 401, 'the intruder\'s refresh token is refused')
  t.equal((await refresh(reference, laptop.refresh)).status, 401, 'so is every other session\'s')
  const change = await intruder.browser.post('second-factor/enrol/start', {}, { authorization: `Bearer ${String(intrudersTokens.body.auth)}` })
  t.equal(change.status, 401, 'the intruder\'s auth token changes nothing, at once')
  t.match(change.body, { reason: 'session_ended' })
  const again = await intruder.browser.post('sessions/end-others', {}, intruder.bearer)
  t.same([again.status, again.body.reason], [401, 'session_ended'], 'nor can it end the owner\'s session in turn')

  const kept = await refresh(reference, owner.refresh)
  t.equal(kept.status, 200, 'the caller\'s own session goes on')
  t.equal(decodeJwt(String(kept.body.auth)).sid, decodeJwt(owner.bearer.authorization.slice('Bearer '.length)).sid)
  t.equal((await refresh(reference, bo.refresh)).status, 200, 'another account\'s session goes on')
  const accountId = decodeJwt(owner.bearer.authorization.slice('Bearer '.length)).sub
  t.match(logs.lines.findLast((line) => line.audit === 'sessions.others-ended'), { accountId, sessionsEnded: 2 })
})

t.test('the caller keeps her proof: a change right after needs none again, while the ended session\'s proof proves nothing', async (t) => {
  const { reference } = await setUp(t)
  const owner = await signIn(reference, 'ada@example.com')
  // The intruder's sign-in left a fresh proof in his browser; later he reads the owner's auth cookie too.
  const intruder = await signIn(reference, 'ada@example.com')
  t.equal((await owner.browser.post('sessions/end-others', {}, owner.bearer)).status, 200)
  t.equal((await owner.browser.post('passkeys/register/options', { conditional: false }, owner.bearer)).status, 200,
    'the owner adds a passkey with the sign-in\'s proof, asked nothing again')
  const withStolenToken = await intruder.browser.post('passkeys/register/options', { conditional: false }, owner.bearer)
  t.equal(withStolenToken.status, 403, 'his proof, of a session that has ended, does nothing for the owner\'s token')
  t.match(withStolenToken.body, { reason: 'fresh_proof_required' })
})

t.test('without a live session the call is refused, and ends nothing', async (t) => {
  const { reference, logs } = await setUp(t)
  const owner = await signIn(reference, 'ada@example.com')
  const other = await signIn(reference, 'ada@example.com')
  const unsigned = await postJson(reference.base, '/accounts/sessions/end-others', {})
  t.same([unsigned.status, unsigned.body], [401, { error: 'Please sign in again to sign out of your other sessions.', reason: 'signed_out' }])
  const forged = await postJson(reference.base, '/accounts/sessions/end-others', {}, { authorization: 'Bearer not.a.token' })
  t.same([forged.status, forged.body.reason], [401, 'signed_out'])
  t.equal((await postJson(reference.base, '/accounts/token/revoke', { refresh: owner.refresh })).status, 200, 'the owner logs out')
  const loggedOut = await owner.browser.post('sessions/end-others', {}, owner.bearer)
  t.same([loggedOut.status, loggedOut.body.reason], [401, 'session_ended'], 'a logged-out session\'s token is refused at once')
  t.equal((await refresh(reference, other.refresh)).status, 200, 'the other session goes on')
  t.match(logs.lines.findLast((line) => line.audit === 'sessions.end-others.refused'), { reason: 'session-ended' })
})
