import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { Clock, enrolAuthenticator, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { startReference } from '../../../fixtures/servers/reference.js'

/*
 * `account/overview` (docs/account-changes.md): what the account view starts
 * from, and what the service serves of it, so that the view offers nothing
 * that would answer "Not found.".
 */

t.test('a signed-in owner reads her account, her second factor and every section the service serves', async (t) => {
  const reference = await startReference(t)
  const owner = await signedInOwner(reference, 'ada@example.com')
  const overview = await owner.browser.post('account/overview', {}, owner.bearer)
  t.same([overview.status, overview.body], [200, {
    account: { email: 'ada@example.com', firstName: null, lastName: null, emailVerified: true, hasPassword: true, google: false },
    secondFactor: { enrolled: false, recoveryCodesLeft: 0, rememberedBrowsers: 0 },
    features: ['sessions', 'passkeys', 'second-factor', 'password', 'email', 'activity', 'delete']
  }])
})

t.test('without passkeys and the second factor, their sections are not offered', async (t) => {
  const reference = await startReference(t, { env: { PASSKEYS: 'false', SECOND_FACTOR: 'false' } })
  const owner = await signedInOwner(reference, 'ada@example.com')
  const overview = await owner.browser.post('account/overview', {}, owner.bearer)
  t.same(overview.body.features, ['sessions', 'password', 'email', 'activity', 'delete'])
})

t.test('an enrolled second factor shows its recovery codes left and the browsers spared the code, until they are forgotten', async (t) => {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  const owner = await signedInOwner(reference, 'ada@example.com')
  const { secret, recoveryCodes } = await enrolAuthenticator(owner, clock)
  const secondFactor = async () => (await owner.browser.post('account/overview', {}, owner.bearer)).body.secondFactor
  t.same(await secondFactor(), { enrolled: true, recoveryCodesLeft: recoveryCodes.length, rememberedBrowsers: 0 })

  // A sign-in that spends a recovery code, and one that asks this browser to be remembered.
  const first = await owner.browser.signIn('ada@example.com')
  t.equal((await owner.browser.post('second-factor/verify', { challenge: first.body.challenge, recovery_code: recoveryCodes[0], remember_browser: false })).status, 200)
  clock.passSeconds(30)
  const second = await owner.browser.signIn('ada@example.com')
  const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.value })
  t.equal((await owner.browser.post('second-factor/verify', { challenge: second.body.challenge, code, remember_browser: true })).status, 200)
  t.same(await secondFactor(), { enrolled: true, recoveryCodesLeft: recoveryCodes.length - 1, rememberedBrowsers: 1 })

  clock.passDays(31)
  const renewed = await owner.browser.signIn('ada@example.com')
  t.type(renewed.body.challenge, 'string', 'the remembered browser is asked for a code again after 30 days')
  const bearer = { authorization: `Bearer ${String((await owner.browser.post('second-factor/verify', {
    challenge: renewed.body.challenge, code: new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.value }), remember_browser: false
  })).body.auth)}` }
  t.match((await owner.browser.post('account/overview', {}, bearer)).body.secondFactor, { rememberedBrowsers: 0 }, 'and is no longer counted')
})

t.test('without a live session the overview is refused, naming nothing of the account', async (t) => {
  const reference = await startReference(t)
  const owner = await signedInOwner(reference, 'ada@example.com')
  const unsigned = await postJson(reference.base, '/accounts/account/overview', {})
  t.same([unsigned.status, unsigned.body], [401, { error: 'Please sign in again to see your account.', reason: 'signed_out' }])
  t.equal((await postJson(reference.base, '/accounts/token/revoke', { refresh: owner.refresh })).status, 200, 'the owner signs out')
  const ended = await owner.browser.post('account/overview', {}, owner.bearer)
  t.same([ended.status, ended.body.reason], [401, 'session_ended'], 'the signed-out session\'s token reads nothing')
  t.notMatch(JSON.stringify(ended.body), /ada@example\.com/)
})
