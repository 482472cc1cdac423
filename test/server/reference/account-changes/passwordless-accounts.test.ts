import t from 'tap'
import { addPasskey, passkeySignIn } from '../../../fixtures/account-changes/account-changes.js'
import { signInByCode } from '../../../fixtures/email-codes/reference-email-codes.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/*
 * Accounts made with an emailed code have no password (docs/account-changes.md#accounts-without-a-password):
 * a password sign-in finds nothing to check, and the owner adds a password or a passkey when she likes.
 */

const NEW_PASSWORD = 'a password set later on'

t.test('a password sign-in of an account without a password is refused as a wrong password is', async (t) => {
  const service = await startReference(t)
  t.equal((await signInByCode(new PasskeyBrowser(service.base), service, 'nopass@example.com')).status, 200)
  await registerAccount(service.base, 'haspass@example.com')
  const guessed = await postLogin(service.base, 'nopass@example.com', 'any password at all')
  const wrong = await postLogin(service.base, 'haspass@example.com', 'any password at all')
  t.same([guessed.status, guessed.body], [wrong.status, wrong.body], 'the same refusal')
  t.same([guessed.status, guessed.body], [401, { error: 'Invalid email or password.' }])
})

t.test('an account without a password sets one through the emailed reset link', async (t) => {
  const service = await startReference(t)
  await signInByCode(new PasskeyBrowser(service.base), service, 'reset.me@example.com')
  await postJson(service.base, '/accounts/resetPasswordRequest', { email: 'reset.me@example.com' })
  const { token } = resetLinkOf(await waitForEmail(service.dataDir, 1, 'reset'))
  const set = await postJson(service.base, '/accounts/resetPassword', { token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })
  t.equal(set.status, 200)
  t.equal((await postLogin(service.base, 'reset.me@example.com', NEW_PASSWORD)).status, 200, 'the password signs in')
})

t.test('right after a code sign-in, the account view sets a password without asking for one, and the overview tells', async (t) => {
  const service = await startReference(t)
  const browser = new PasskeyBrowser(service.base)
  const signedIn = await signInByCode(browser, service, 'view@example.com')
  const bearer = { authorization: `Bearer ${String(signedIn.body.auth)}` }
  t.match((await browser.post('account/overview', {}, bearer)).body, { account: { hasPassword: false, emailVerified: true } })
  t.match((await browser.post('sessions/list', {}, bearer)).body, { sessions: [{ current: true, method: 'email-code' }] }, 'the session names its first factor')
  t.match((await browser.post('activity/list', {}, bearer)).body, { events: [{ kind: 'sign-in', method: 'email-code' }] }, 'and so does the activity')
  const changed = await browser.post('password/change', { newPassword: NEW_PASSWORD }, bearer)
  t.same([changed.status, changed.body], [200, { success: 'Your password has been changed.' }], 'the code sign-in is the fresh proof')
  t.match((await browser.post('account/overview', {}, bearer)).body, { account: { hasPassword: true } })
  t.equal((await postLogin(service.base, 'view@example.com', NEW_PASSWORD)).status, 200)
})

t.test('a passkey added after a code sign-in signs the account in: no password ever', async (t) => {
  const service = await startReference(t)
  const browser = new PasskeyBrowser(service.base)
  const signedIn = await signInByCode(browser, service, 'passkey.only@example.com')
  t.equal(signedIn.body.registered, true)
  const owner = { browser, bearer: { authorization: `Bearer ${String(signedIn.body.auth)}` }, refresh: String(signedIn.body.refresh), authenticator: new SoftwareAuthenticator(TEST_PUBLIC_URL) }
  t.equal((await addPasskey(owner)).status, 200, 'registered with the code sign-in\'s proof')
  t.equal(await passkeySignIn(owner), 200, 'and it signs in')
  t.equal((await service.services.store.findAccountByEmail('passkey.only@example.com'))?.passwordHash, null)
})
