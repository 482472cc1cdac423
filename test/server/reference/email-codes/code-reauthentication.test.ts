import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { Clock, enrolAuthenticator, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { codeCall, emailedCode, signInByCode } from '../../../fixtures/email-codes/reference-email-codes.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'

/** Past the sign-in's own proof (FRESH_PROOF_WINDOW_MS), so that a change needs a proof given again. */
const PAST_THE_SIGN_IN_PROOF_SECONDS = 6 * 60
const NEW_PASSWORD = 'a passphrase of my own'

t.test('an account without a password proves itself again with a code emailed to it, then sets a password', async (t) => {
  const clock = new Clock()
  const service = await startReference(t, { now: clock.now })
  const browser = new ServiceBrowser(service.base)
  const signedIn = await signInByCode(browser, service, 'codes.only@example.com')
  const bearer = { authorization: `Bearer ${String(signedIn.body.auth)}` }
  clock.passSeconds(PAST_THE_SIGN_IN_PROOF_SECONDS)

  const refused = await browser.post('password/change', { newPassword: NEW_PASSWORD }, bearer)
  t.same([refused.status, refused.body.reason], [403, 'fresh_proof_required'], 'the sign-in\'s proof has run out')

  const sent = await codeCall(browser, service, 'email-code/send', { purpose: 'reauthenticate' }, bearer)
  t.same([sent.status, sent.body.expires_in], [200, 600])
  const { code, email } = await emailedCode(service.dataDir, 'codes.only@example.com', 2)
  t.match(email.raw, /^Subject: Your Threshold confirmation code$/m)
  t.match(email.decoded, /This code confirms the change/)

  const proven = await codeCall(browser, service, 'reauthenticate', { email_code: code }, bearer)
  t.same([proven.status, proven.body], [200, { success: 'Thank you, that\'s confirmed.' }])
  const changed = await browser.post('password/change', { newPassword: NEW_PASSWORD }, bearer)
  t.equal(changed.status, 200, 'the emailed code counts as the password would')
  t.equal((await browser.signIn('codes.only@example.com', NEW_PASSWORD)).status, 200, 'and the account now signs in with it')
})

t.test('a fresh proof\'s code: only for the signed-in owner, only in her browser, never a sign-in', async (t) => {
  const service = await startReference(t)
  const owner = new ServiceBrowser(service.base)
  const signedIn = await signInByCode(owner, service, 'owner@example.com')
  const bearer = { authorization: `Bearer ${String(signedIn.body.auth)}` }

  const anonymous = await codeCall(new ServiceBrowser(service.base), service, 'email-code/send', { purpose: 'reauthenticate' })
  t.same([anonymous.status, anonymous.body.reason], [401, 'signed_out'], 'no code without a signed-in session')

  await codeCall(owner, service, 'email-code/send', { purpose: 'reauthenticate' }, bearer)
  const { code } = await emailedCode(service.dataDir, 'owner@example.com', 2)
  const stolenToken = new ServiceBrowser(service.base)
  const elsewhere = await codeCall(stolenToken, service, 'reauthenticate', { email_code: code }, bearer)
  t.same([elsewhere.status, elsewhere.body.reason], [401, 'code_other_browser'], 'a token and the code, in another browser')
  const asSignIn = await codeCall(owner, service, 'email-code/login', { email: 'owner@example.com', code })
  t.same([asSignIn.status, asSignIn.body.reason], [401, 'code_expired'], 'a fresh proof\'s code signs nobody in')

  t.equal((await codeCall(owner, service, 'reauthenticate', { email_code: code }, bearer)).status, 200, 'the owner\'s own code, in her browser')

  await codeCall(owner, service, 'email-code/send', { email: 'owner@example.com' })
  const { code: signInCode } = await emailedCode(service.dataDir, 'owner@example.com', 3)
  const asProof = await codeCall(owner, service, 'reauthenticate', { email_code: signInCode }, bearer)
  t.same([asProof.status, asProof.body.reason], [401, 'code_expired'], 'nor is a sign-in\'s code a fresh proof')

  const both = await codeCall(owner, service, 'reauthenticate', { email_code: code, password: GOOD_PASSWORD }, bearer)
  t.equal(both.status, 400, 'a password and a code both: one proof at a time')
  const malformed = await codeCall(owner, service, 'reauthenticate', { email_code: 'nope' }, bearer)
  t.same([malformed.status, malformed.body], [400, { error: 'A code is 8 letters and digits, such as ABCD-EFGH.' }])
})

t.test('with a second factor, an emailed code is one part of the proof: the authenticator\'s code must come with it', async (t) => {
  const clock = new Clock()
  const service = await startReference(t, { now: clock.now })
  const owner = await signedInOwner(service, 'guarded@example.com')
  const { secret } = await enrolAuthenticator(owner, clock)
  clock.passSeconds(PAST_THE_SIGN_IN_PROOF_SECONDS)
  await codeCall(owner.browser, service, 'email-code/send', { purpose: 'reauthenticate' }, owner.bearer)
  const { code } = await emailedCode(service.dataDir, 'guarded@example.com')
  const alone = await codeCall(owner.browser, service, 'reauthenticate', { email_code: code }, owner.bearer)
  t.same([alone.status, alone.body], [400, { error: 'Enter a code from your authenticator app (or a recovery code) to confirm it\'s you.' }])
  const otp = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.value })
  const withOtp = await codeCall(owner.browser, service, 'reauthenticate', { email_code: code, code: otp }, owner.bearer)
  t.equal(withOtp.status, 200, 'the emailed code and the authenticator\'s')
  t.equal((await owner.browser.post('second-factor/remove', {}, owner.bearer)).status, 200, 'a proof strong enough to turn the factor off')
})
