import { randomBytes } from 'node:crypto'
import t from 'tap'
import { googleNonceFor } from '../../../../server/reference/google/google-id-token.js'
import { signedInOwner, waitForSubject } from '../../../fixtures/account-changes/account-changes.js'
import { accountsLinkOf, resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { GOOD_PASSWORD, logCollector, startReference, type Reference } from '../../../fixtures/servers/reference.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/*
 * `password/change`, called straight on the reference service (the edge's
 * forwarding of the account view's calls is its own part), replayed as the
 * attacks the rule of docs/account-changes.md stops, and held to
 * registration's rules.
 */

const NEW_PASSWORD = 'a new and longer passphrase'

const refresh = async (reference: Reference, token: string) => await postJson(reference.base, '/accounts/token/refresh', { refresh: token })

t.test('a token without this browser\'s fresh proof changes no password', async (t) => {
  const reference = await startReference(t)
  const ada = await signedInOwner(reference, 'ada@example.com')
  // Whoever read Ada's auth cookie holds her token, and nothing else.
  const attacker = new PasskeyBrowser(reference.base)
  const refused = await attacker.postToService(reference, 'password/change', { newPassword: NEW_PASSWORD, endOtherSessions: true }, ada.bearer)
  t.equal(refused.status, 403)
  t.match(refused.body, { reason: 'fresh_proof_required', proof_methods: ['password', 'sign_in'] })
  const signedOut = await attacker.postToService(reference, 'password/change', { newPassword: NEW_PASSWORD })
  t.same([signedOut.status, signedOut.body.reason], [401, 'signed_out'])
  t.equal((await postLogin(reference.base, 'ada@example.com', GOOD_PASSWORD)).status, 200, 'the old password still signs in')
  t.equal((await postLogin(reference.base, 'ada@example.com', NEW_PASSWORD)).status, 401, 'and his does not')
  t.equal((await refresh(reference, ada.refresh)).status, 200, 'her session goes on')
})

t.test('the new password signs in and the old one no longer does; other sessions go on unless asked; the owner is told with the undo link', async (t) => {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream })
  const ada = await signedInOwner(reference, 'ada@example.com')
  const elsewhere = await postLogin(reference.base, 'ada@example.com')
  t.equal(elsewhere.status, 200)

  const changed = await ada.browser.postToService(reference, 'password/change', { newPassword: NEW_PASSWORD, endOtherSessions: false }, ada.bearer)
  t.same([changed.status, Object.keys(changed.body)], [200, ['success']])
  t.equal((await postLogin(reference.base, 'ada@example.com', GOOD_PASSWORD)).status, 401, 'the old password is refused')
  t.equal((await postLogin(reference.base, 'ada@example.com', NEW_PASSWORD)).status, 200, 'the new one signs in')
  t.equal((await refresh(reference, String(elsewhere.body.refresh))).status, 200, 'the other session goes on: not asked to end it')
  t.equal((await refresh(reference, ada.refresh)).status, 200, 'and so does hers')

  const [notice] = await waitForSubject(reference.dataDir, /^The password of your .+ account was changed/)
  t.match(notice!.raw, /^To: ada@example\.com/m)
  t.ok(accountsLinkOf(notice!, 'undoChange').token, 'with the "this wasn\'t me" link')
  t.match(logs.lines.find((line) => line.audit === 'password.changed'), { hadPassword: true, otherSessionsEnded: 0 })
  t.notMatch(logs.text(), new RegExp(NEW_PASSWORD), 'the password is never logged')
})

t.test('with endOtherSessions every other session ends at once, and the caller\'s goes on', async (t) => {
  const reference = await startReference(t)
  const ada = await signedInOwner(reference, 'ada@example.com')
  const others = [await postLogin(reference.base, 'ada@example.com'), await postLogin(reference.base, 'ada@example.com')]
  const changed = await ada.browser.postToService(reference, 'password/change', { newPassword: NEW_PASSWORD, endOtherSessions: true }, ada.bearer)
  t.equal(changed.status, 200)
  for (const other of others) {
    t.equal((await refresh(reference, String(other.body.refresh))).status, 401, 'another session\'s refresh is refused')
    const stale = await new PasskeyBrowser(reference.base).postToService(reference, 'passkeys/list', {}, { authorization: `Bearer ${String(other.body.auth)}` })
    t.same([stale.status, stale.body.reason], [401, 'session_ended'], 'and its auth token is refused at once')
  }
  t.equal((await refresh(reference, ada.refresh)).status, 200, 'hers goes on')
})

t.test('a reset link sent before the change no longer sets a password', async (t) => {
  const reference = await startReference(t)
  const ada = await signedInOwner(reference, 'ada@example.com')
  t.equal((await postJson(reference.base, '/accounts/resetPasswordRequest', { email: 'ada@example.com' })).status, 200)
  const { token } = resetLinkOf(await waitForEmail(reference.dataDir, 1, 'reset'))
  t.equal((await ada.browser.postToService(reference, 'password/change', { newPassword: NEW_PASSWORD }, ada.bearer)).status, 200)
  const reset = await postJson(reference.base, '/accounts/resetPassword', { token, password: 'someone else\'s password', confirm_password: 'someone else\'s password' })
  t.equal(reset.status, 400, 'the earlier link is void')
  t.equal((await postLogin(reference.base, 'ada@example.com', NEW_PASSWORD)).status, 200)
})

t.test('a new password is held to registration\'s rules and breach check, and a refused one changes nothing', async (t) => {
  const reference = await startReference(t)
  const ada = await signedInOwner(reference, 'ada@example.com')
  reference.rangeServer!.breach('correct horse battery staple 2')
  const change = async (body: unknown) => await ada.browser.postToService(reference, 'password/change', body, ada.bearer)
  const refusals: Array<[string, unknown, RegExp]> = [
    ['too short', { newPassword: 'short' }, /at least 8 characters/],
    ['no password', { endOtherSessions: true }, /Choose a password/],
    ['the address itself', { newPassword: 'ada@example.com' }, /email address/],
    ['a common password', { newPassword: 'password123' }, /common/],
    ['a breached password', { newPassword: 'correct horse battery staple 2' }, /data breach/],
    ['endOtherSessions that is not true or false', { newPassword: NEW_PASSWORD, endOtherSessions: 'yes' }, /true or false/]
  ]
  for (const [what, body, text] of refusals) {
    const refused = await change(body)
    t.equal(refused.status, 400, `${what}: 400`)
    t.match(refused.body.error, text, `${what}: the text says why`)
  }
  const german = await ada.browser.postToService(reference, 'password/change', { newPassword: 'kurz' }, { ...ada.bearer, 'accept-language': 'de' })
  t.match(german.body.error, /mindestens 8 Zeichen/, 'in the language of the request')
  t.equal((await postLogin(reference.base, 'ada@example.com', GOOD_PASSWORD)).status, 200, 'the password is as it was')
})

t.test('an account without a password (Google) sets one with its sign-in\'s proof, and is told a password was set', async (t) => {
  const google = await startGoogleStandIn(t)
  const reference = await startReference(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  const token = async (nonceSecret: string) => ({
    authorization: `Bearer ${await google.credential({ email: 'gil@gmail.example', sub: 'gil-google', nonce: googleNonceFor(nonceSecret) })}`
  })
  const registration = randomBytes(32).toString('base64url')
  t.equal((await postJson(reference.base, '/accounts/auth/register', { register_method: 'GOOGLE', google_nonce_secret: registration }, await token(registration))).status, 200)
  const gil = new PasskeyBrowser(reference.base)
  const pageSecret = randomBytes(32).toString('base64url')
  const signedIn = await gil.post('v2/auth/login', { login_method: 'GOOGLE', google_nonce_secret: pageSecret }, await token(pageSecret))
  t.equal(signedIn.status, 200)
  t.equal((await postLogin(reference.base, 'gil@gmail.example', NEW_PASSWORD)).status, 401, 'no password signs in before')

  const set = await gil.postToService(reference, 'password/change', { newPassword: NEW_PASSWORD, endOtherSessions: false }, { authorization: `Bearer ${String(signedIn.body.auth)}` })
  t.equal(set.status, 200)
  t.equal((await postLogin(reference.base, 'gil@gmail.example', NEW_PASSWORD)).status, 200, 'the password signs in now')
  const [notice] = await waitForSubject(reference.dataDir, /^A password was set for your /)
  t.match(notice!.raw, /^To: gil@gmail\.example/m)
})
