import t from 'tap'
import type { Test } from 'tap'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { accountsLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { openLink } from '../../../fixtures/http/open-link.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { addPasskey, Clock, enrolAuthenticator, passkeySignIn, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'

/*
 * "This wasn't me", replayed as the attack it answers: someone with a way
 * into Ada's account (her password, a session) adds a passkey or an
 * authenticator app of theirs. The email's link leads Ada to a new
 * password; saving it takes the addition away, and every session with it.
 * Opening the link alone changes nothing: a mail scanner opens them all.
 */

const NEW_PASSWORD_VIEW = new RegExp(`^${TEST_PUBLIC_URL}/\\?view=setPassword&token=([\\w-]{43})&notice=undo-change&ui_locales=en$`)
const LINK_REFUSED = `${TEST_PUBLIC_URL}/?view=resetPassword&notice=end-sessions-link-invalid&ui_locales=en`
const NEW_PASSWORD = 'a brand new passphrase'

/** Ada opens the link and saves a new password on the view it lands on: the reset's answer. */
async function undoWithNewPassword (t: Test, base: string, link: string): Promise<{ status: number, body: Record<string, unknown> }> {
  const opened = await openLink(link.replace(TEST_PUBLIC_URL, base))
  t.equal(opened.status, 303)
  const landing = NEW_PASSWORD_VIEW.exec(opened.location ?? '')
  t.ok(landing, `the set-password view with the link's token and what saving will do: ${opened.location}`)
  t.equal(landing?.[1], new URL(link).searchParams.get('token'), 'the token is the link\'s own, not used yet')
  return await postJson(base, '/accounts/resetPassword', { token: landing?.[1] ?? '', password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })
}

t.test('the passkey-added email\'s link and a new password end every session and remove that passkey for good, once', async (t) => {
  const logs = logCollector()
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now, logStream: logs.stream })
  const intruder = await signedInOwner({ base, dataDir }, 'ada@example.com')
  const elsewhere = await signedInOwner({ base, dataDir }, 'ada@example.com', { registered: true })
  const planted = await addPasskey(intruder)
  t.equal(planted.status, 200)
  t.equal(await passkeySignIn(intruder), 200, 'the planted passkey signs in')
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'passkeyAdded'), 'undoChange')

  const reset = await undoWithNewPassword(t, base, link)
  t.equal(reset.status, 200, 'the new password is set with the link\'s token')
  t.notOk('review_token' in reset.body, 'the removed passkey is not listed: nothing recent is left')
  for (const session of [intruder, elsewhere]) {
    t.equal((await postJson(base, '/accounts/token/refresh', { refresh: session.refresh })).status, 401, 'every session has ended')
  }
  t.equal(await passkeySignIn(intruder), 401, 'the planted passkey signs in no more')
  const accountId = (await services.store.findAccountByEmail('ada@example.com'))!.id
  t.same(await services.store.listPasskeys(accountId), [])
  t.equal((await addPasskey(intruder)).status, 401, 'nor can the old session\'s token plant another')
  await logs.waitFor((line) => line.audit === 'change.undone' && line.removed === 'passkey')
  t.ok(logs.lines.some((line) => line.audit === 'reset.completed' && line.via === 'undo-change'))

  t.equal((await openLink(link.replace(TEST_PUBLIC_URL, base))).location, LINK_REFUSED, 'a second opening is refused')
  t.ok(auditEvents(logs).includes('change.undo-refused'))
  t.equal((await openLink(`${base}/accounts/undoChange?token=${'x'.repeat(43)}`)).location, LINK_REFUSED, 'a made-up one too')
  const again = await postJson(base, '/accounts/resetPassword', { token: new URL(link).searchParams.get('token'), password: 'yet another passphrase', confirm_password: 'yet another passphrase' })
  t.equal(again.status, 400, 'the spent link sets no second password')
})

t.test('a mail scanner that opens the link, again and again, changes nothing: the owner\'s own passkey and sessions stay', async (t) => {
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now })
  const owner = await signedInOwner({ base, dataDir }, 'ben@example.com')
  t.equal((await addPasskey(owner)).status, 200)
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'passkeyAdded'), 'undoChange')
  for (let opening = 0; opening < 3; opening++) {
    const scanned = await openLink(link.replace(TEST_PUBLIC_URL, base))
    t.match(scanned.location, NEW_PASSWORD_VIEW, 'the scanner is sent to the page, no further')
    // A scanner that follows the redirect fetches the page: a GET that carries no password.
  }
  const accountId = (await services.store.findAccountByEmail('ben@example.com'))!.id
  t.equal((await services.store.listPasskeys(accountId)).length, 1, 'the passkey stays')
  t.equal(await passkeySignIn(owner), 200, 'and signs in')
  const refreshed = await postJson(base, '/accounts/token/refresh', { refresh: owner.refresh })
  t.equal(refreshed.status, 200, 'the session lives on')
  const headOnly = await fetch(link.replace(TEST_PUBLIC_URL, base), { method: 'HEAD', redirect: 'manual' })
  t.ok([303, 404, 405].includes(headOnly.status), `a HEAD changes nothing either: ${headOnly.status}`)
  t.equal((await services.store.listPasskeys(accountId)).length, 1)
  // The owner, who did add it, can still use the link later if she changes her mind.
  t.match((await openLink(link.replace(TEST_PUBLIC_URL, base))).location, NEW_PASSWORD_VIEW, 'the link still works')
})

t.test('a refused new password (too short) uses nothing: the link still works, the passkey stays', async (t) => {
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now })
  const owner = await signedInOwner({ base, dataDir }, 'cy@example.com')
  await addPasskey(owner)
  const { token } = accountsLinkOf(await waitForEmail(dataDir, 1, 'passkeyAdded'), 'undoChange')
  const refused = await postJson(base, '/accounts/resetPassword', { token, password: 'short', confirm_password: 'short' })
  t.equal(refused.status, 400)
  const accountId = (await services.store.findAccountByEmail('cy@example.com'))!.id
  t.equal((await services.store.listPasskeys(accountId)).length, 1)
  t.equal((await postJson(base, '/accounts/resetPassword', { token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })).status, 200, 'then a good one')
  t.same(await services.store.listPasskeys(accountId), [])
})

t.test('the link expires after 7 days', async (t) => {
  const clock = new Clock()
  const { base, dataDir } = await startReference(t, { now: clock.now })
  const owner = await signedInOwner({ base, dataDir }, 'eve@example.com')
  await addPasskey(owner)
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'passkeyAdded'), 'undoChange')
  clock.passDays(7)
  t.equal((await openLink(link.replace(TEST_PUBLIC_URL, base))).location, LINK_REFUSED)
  t.equal(await passkeySignIn(owner), 200, 'the passkey stays')
})

t.test('the authenticator-on email\'s link removes the app and its recovery codes: the next sign-in asks for no code', async (t) => {
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now })
  const intruder = await signedInOwner({ base, dataDir }, 'fay@example.com')
  await enrolAuthenticator(intruder, clock)
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'secondFactorOn'), 'undoChange')
  // A reset alone keeps the app (docs/second-factor.md): the intruder's codes would still be asked for.
  const due = await postJson(base, '/accounts/v2/login', { email: 'fay@example.com', password: GOOD_PASSWORD })
  t.equal(due.body.second_factor, 'code', 'the intruder\'s app guards the account')

  t.equal((await undoWithNewPassword(t, base, link)).status, 200)
  const accountId = (await services.store.findAccountByEmail('fay@example.com'))!.id
  t.equal(await services.store.findSecondFactor(accountId), null, 'the app is gone')
  t.equal(await services.store.countUnusedRecoveryCodes(accountId), 0, 'and its recovery codes')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: intruder.refresh })).status, 401, 'and every session')
  const signIn = await postJson(base, '/accounts/v2/login', { email: 'fay@example.com', password: NEW_PASSWORD })
  t.type(signIn.body.auth, 'string', 'the next sign-in asks for no code')
})

t.test('an authenticator-on link leaves a later enrolment alone: it is not the app the email announced', async (t) => {
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now })
  const owner = await signedInOwner({ base, dataDir }, 'gus@example.com')
  await enrolAuthenticator(owner, clock)
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'secondFactorOn'), 'undoChange')
  t.equal((await owner.browser.post('second-factor/remove', {}, owner.bearer)).status, 200)
  clock.value += 60_000
  await enrolAuthenticator(owner, clock)
  const accountId = (await services.store.findAccountByEmail('gus@example.com'))!.id
  const enrolled = await services.store.findSecondFactor(accountId)

  t.equal((await undoWithNewPassword(t, base, link)).status, 200, 'the sessions end all the same')
  t.same(await services.store.findSecondFactor(accountId), enrolled, 'the app set up later stays')
})

t.test('the new-recovery-codes email\'s link leaves no recovery code: the renewed ones may be someone else\'s', async (t) => {
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now })
  const owner = await signedInOwner({ base, dataDir }, 'ada@example.com')
  await enrolAuthenticator(owner, clock)
  // Someone with a proof of the account renews the codes and keeps them.
  const renewed = await owner.browser.post('second-factor/recovery-codes', {}, owner.bearer)
  t.equal(renewed.status, 200)
  const [kept] = renewed.body.recovery_codes as string[]
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'recoveryCodes'), 'undoChange')
  t.equal((await undoWithNewPassword(t, base, link)).status, 200)
  const accountId = (await services.store.findAccountByEmail('ada@example.com'))!.id
  t.equal(await services.store.countUnusedRecoveryCodes(accountId), 0, 'none is left')
  t.not(await services.store.findSecondFactor(accountId), null, 'the authenticator app stays')
  clock.value += 30_000
  const challenge = String((await postJson(base, '/accounts/v2/login', { email: 'ada@example.com', password: NEW_PASSWORD })).body.challenge)
  t.equal((await postJson(base, '/accounts/second-factor/verify', { challenge, recovery_code: kept, remember_browser: false })).status, 401,
    'a kept code signs in no more')
})
