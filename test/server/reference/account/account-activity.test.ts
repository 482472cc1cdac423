import t from 'tap'
import { addPasskey, Clock, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { startReference } from '../../../fixtures/servers/reference.js'

/*
 * `activity/list` (docs/account-changes.md): the account's sign-ins and
 * changes of the last 30 days, newest first, each with its browser and the
 * range of its address, as the service records them where it signs in or
 * changes the account.
 */

const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'

t.test('the owner sees her sign-ins, a failed one, and her changes, newest first, with where each came from', async (t) => {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now, edgeEnv: { TRUST_PROXY: 'loopback' } })
  const headers = { 'user-agent': FIREFOX_ON_LINUX, 'x-forwarded-for': '203.0.113.9' }
  const owner = await signedInOwner(reference, 'ada@example.com', { headers })
  clock.passSeconds(1)
  t.equal((await owner.browser.signIn('ada@example.com', 'not the password')).status, 401)
  clock.passSeconds(1)
  const passkey = await addPasskey(owner)
  t.equal(passkey.status, 200)
  clock.passSeconds(1)
  t.equal((await owner.browser.post('passkeys/remove', { id: passkey.id }, owner.bearer)).status, 200)
  clock.passSeconds(1)
  t.equal((await owner.browser.post('sessions/end-others', {}, owner.bearer)).status, 200)
  // Bo's sign-in is his own, and never in her list.
  await signedInOwner(reference, 'bo@example.com')

  const listed = await owner.browser.post('activity/list', {}, owner.bearer)
  t.equal(listed.status, 200)
  const where = { browser: 'Firefox on Linux', addressRange: '203.0.113.0/24' }
  t.same(listed.body.events, [
    { at: clock.value, kind: 'sessions-ended', method: null, ...where },
    { at: clock.value - 1000, kind: 'passkey-removed', method: null, ...where },
    { at: clock.value - 2000, kind: 'passkey-added', method: null, ...where },
    { at: clock.value - 3000, kind: 'sign-in-failed', method: 'password', ...where },
    { at: clock.value - 4000, kind: 'sign-in', method: 'password', ...where }
  ])
})

t.test('only the last 30 days are listed, at most 100 events', async (t) => {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  const owner = await signedInOwner(reference, 'ada@example.com')
  const accountId = (await reference.services.store.findAccountByEmail('ada@example.com'))!.id
  clock.passDays(31)
  const bearer = await owner.browser.bearerAfterSignIn('ada@example.com')
  const events = async () => (await owner.browser.post('activity/list', {}, bearer)).body.events as Array<Record<string, unknown>>
  t.same((await events()).map((event) => [event.kind, event.at]), [['sign-in', clock.value]], 'the sign-in of 31 days ago is not listed')

  for (let i = 1; i <= 120; i++) {
    await reference.services.store.recordSecurityEvent({ accountId, at: clock.value + i, kind: 'sign-in-failed', method: 'password', userAgent: null, addressRange: '' })
  }
  const many = await events()
  t.equal(many.length, 100)
  t.match(many[0], { at: clock.value + 120, browser: 'Unknown browser', addressRange: '' }, 'the newest first')
})

t.test('without a live session the activity is refused', async (t) => {
  const reference = await startReference(t)
  await signedInOwner(reference, 'ada@example.com')
  const unsigned = await postJson(reference.base, '/accounts/activity/list', {})
  t.same([unsigned.status, unsigned.body], [401, { error: 'Please sign in again to see your account.', reason: 'signed_out' }])
})
