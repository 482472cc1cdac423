import t, { type Test } from 'tap'
import { CHROME_ON_WINDOWS, signedInOwner, waitForSubject } from '../../../fixtures/account-changes/account-changes.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { logCollector, startReference, type Reference } from '../../../fixtures/servers/reference.js'

/*
 * `account/delete` (docs/account-changes.md): the owner deletes her account
 * with a fresh proof and her address typed again. Replayed as the attacks it
 * answers: a stolen auth token without the browser's proof, a confirmation
 * that is not the address, a second delete.
 */

async function setUp (t: Test) {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream })
  const owner = await signedInOwner(reference, 'ada@example.com')
  const elsewhere = await signedInOwner(reference, 'ada@example.com', { registered: true })
  return { reference, logs, owner, elsewhere }
}

const refresh = async (reference: Reference, token: string) => await postJson(reference.base, '/accounts/token/refresh', { refresh: token })

t.test('with a fresh proof and her address typed again, the owner deletes her account: every session ends, and the address is free', async (t) => {
  const { reference, logs, owner, elsewhere } = await setUp(t)
  const accountId = (await reference.services.store.findAccountByEmail('ada@example.com'))!.id
  const deleted = await owner.browser.post('account/delete', { confirmEmail: ' ADA@Example.com ' }, owner.bearer)
  t.same([deleted.status, deleted.body], [200, { success: 'Your account has been deleted.' }], 'the address is compared case-insensitively')

  t.equal(await reference.services.store.findAccountById(accountId), null, 'the account is gone from the store')
  t.equal((await refresh(reference, owner.refresh)).status, 401, 'this session has ended')
  t.equal((await refresh(reference, elsewhere.refresh)).status, 401, 'and every other one')
  const again = await owner.browser.post('account/delete', { confirmEmail: 'ada@example.com' }, owner.bearer)
  t.same([again.status, again.body.reason], [401, 'signed_out'], 'a second delete finds no account behind the token')
  t.equal((await owner.browser.signIn('ada@example.com')).status, 401, 'the account no longer signs in')
  await registerAccount(reference.base, 'ada@example.com')
  t.not(await reference.services.store.findAccountByEmail('ada@example.com'), null, 'its address registers again')
  t.match(logs.lines.findLast((line) => line.audit === 'account.deleted'), { accountId })
  t.notMatch(JSON.stringify(logs.lines.filter((line) => String(line.audit).startsWith('account.'))), /ada@example\.com/i, 'the log names no address')
})

t.test('a stolen auth token without this browser\'s fresh proof deletes nothing', async (t) => {
  const { reference, owner } = await setUp(t)
  owner.browser.forget('threshold_proof')
  const refused = await owner.browser.post('account/delete', { confirmEmail: 'ada@example.com' }, owner.bearer)
  t.equal(refused.status, 403)
  t.match(refused.body, { reason: 'fresh_proof_required', proof_methods: ['password', 'sign_in'] })
  t.not(await reference.services.store.findAccountByEmail('ada@example.com'), null, 'the account stays')
  t.equal((await refresh(reference, owner.refresh)).status, 200, 'and its session lives on')
})

t.test('a confirmation that is not the account\'s address deletes nothing', async (t) => {
  const { reference, owner } = await setUp(t)
  await registerAccount(reference.base, 'bo@example.com')
  for (const confirmEmail of ['bo@example.com', 'ada@example.co', '', 42, null, 'a'.repeat(400)]) {
    const refused = await owner.browser.post('account/delete', { confirmEmail }, owner.bearer)
    t.same([refused.status, refused.body], [400, { error: 'To confirm, type the email address of this account.' }], JSON.stringify(confirmEmail).slice(0, 40))
  }
  t.equal((await owner.browser.post('account/delete', {}, owner.bearer)).status, 400, 'nor none at all')
  t.not(await reference.services.store.findAccountByEmail('ada@example.com'), null, 'the account stays')
  t.not(await reference.services.store.findAccountByEmail('bo@example.com'), null, 'and so does the one named')
})

t.test('without a live session the deletion is refused', async (t) => {
  const { reference } = await setUp(t)
  const unsigned = await postJson(reference.base, '/accounts/account/delete', { confirmEmail: 'ada@example.com' })
  t.same([unsigned.status, unsigned.body], [401, { error: 'Please sign in again to delete your account.', reason: 'signed_out' }])
  t.not(await reference.services.store.findAccountByEmail('ada@example.com'), null)
})

t.test('the owner is told at the address the account had, with no link', async (t) => {
  const reference = await startReference(t)
  const owner = await signedInOwner(reference, 'ada@example.com', { headers: { 'user-agent': CHROME_ON_WINDOWS } })
  t.equal((await owner.browser.post('account/delete', { confirmEmail: 'ada@example.com' }, owner.bearer)).status, 200)
  const [email] = await waitForSubject(reference.dataDir, /^Your Threshold account was deleted$/)
  t.match(email!.decoded, /^To: ada@example\.com$/m)
  t.match(email!.decoded, /Chrome on Windows/, 'the browser it was done from')
  t.notMatch(email!.decoded, /https?:\/\//, 'no link: there is no account left to act on')
})
