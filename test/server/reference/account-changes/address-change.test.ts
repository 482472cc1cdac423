import t, { type Test } from 'tap'
import { Clock, signedInOwner, waitForSubject, type SignedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { accountsLinkOf, outboxEmails, resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { openLink } from '../../../fixtures/http/open-link.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { logCollector, startReference, TEST_PUBLIC_URL, type LogCollector, type Reference } from '../../../fixtures/servers/reference.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/*
 * `email/change` and `email/confirm`, called straight on the reference
 * service (the edge's forwarding of the account view's calls is its own
 * part), and the link `confirmEmail` through the edge, replayed as the
 * attacks they must stop: no fresh proof, a forged or reused link, a link
 * opened by a mail scanner, an address that must not be revealed as taken.
 */

const NEW_ADDRESS = 'ada@new.example'
const NEW_PASSWORD = 'a new and longer passphrase'

interface Setup {
  readonly reference: Reference
  readonly logs: LogCollector
  readonly clock: Clock
  readonly ada: SignedInOwner
}

async function setUp (t: Test): Promise<Setup> {
  const logs = logCollector()
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now, logStream: logs.stream })
  return { reference, logs, clock, ada: await signedInOwner(reference, 'ada@example.com') }
}

const askFor = async (setup: Setup, newEmail: unknown, owner: SignedInOwner = setup.ada) =>
  await owner.browser.postToService(setup.reference, 'email/change', { newEmail }, owner.bearer)

const confirm = async (setup: Setup, token: unknown) =>
  await new PasskeyBrowser(setup.reference.base).postToService(setup.reference, 'email/confirm', { token })

/** The newest confirmation link sent to `to`, and its token. */
async function linkSentTo (setup: Setup, to: string, count = 1): Promise<{ link: string, token: string }> {
  const emails = (await waitForSubject(setup.reference.dataDir, /^Confirm your new email address/, count)).filter((email) => email.raw.includes(`To: ${to}`))
  const { link, token } = accountsLinkOf(emails.at(-1)!, 'confirmEmail')
  return { link: link.replace(TEST_PUBLIC_URL, setup.reference.base), token }
}

const addressOf = async (setup: Setup, id: string) => (await setup.reference.services.store.findAccountById(id))?.email

t.test('the link, opened where the owner signed in, moves the account to the new address, verified; the old one is told and signs in no more', async (t) => {
  const setup = await setUp(t)
  const { store } = setup.reference.services
  const accountId = (await store.findAccountByEmail('ada@example.com'))!.id
  const asked = await askFor(setup, NEW_ADDRESS)
  t.same([asked.status, Object.keys(asked.body)], [200, ['success']])
  t.equal(await addressOf(setup, accountId), 'ada@example.com', 'nothing changes before the link is opened')

  const { link } = await linkSentTo(setup, NEW_ADDRESS)
  const landed = await openLink(link, { cookie: setup.ada.browser.cookie! })
  t.equal(landed.status, 303)
  t.match(landed.location, /^https:\/\/signin\.example\.test\/\?view=login&notice=email-changed/)
  const moved = (await store.findAccountById(accountId))!
  t.equal(moved.email, NEW_ADDRESS)
  t.ok(moved.emailVerifiedAt !== null, 'and verified: the link proved it')
  t.equal((await postLogin(setup.reference.base, NEW_ADDRESS)).status, 200, 'the new address signs in')
  t.equal((await postLogin(setup.reference.base, 'ada@example.com')).status, 401, 'the old one no more')
  t.equal((await openLink(link, { cookie: setup.ada.browser.cookie! })).location?.includes('notice=email-change-link-invalid'), true, 'the link works once')

  const [notice] = await waitForSubject(setup.reference.dataDir, /^The email address of your .+ account was changed/)
  t.match(notice!.raw, /^To: ada@example\.com/m, 'the old address is told')
  t.notMatch(notice!.decoded, /ada@new\.example/, 'without naming the new one')
  t.ok(accountsLinkOf(notice!, 'undoChange').token, 'with the "this wasn\'t me" link')
  t.notMatch(setup.logs.text(), /ada@new\.example/, 'the new address is never logged')
})

t.test('a token without this browser\'s fresh proof asks for no new address', async (t) => {
  const setup = await setUp(t)
  // Whoever read Ada's auth cookie holds her token, and nothing else.
  const attacker = new PasskeyBrowser(setup.reference.base)
  const refused = await attacker.postToService(setup.reference, 'email/change', { newEmail: 'mallory@evil.example' }, setup.ada.bearer)
  t.equal(refused.status, 403)
  t.match(refused.body, { reason: 'fresh_proof_required', proof_methods: ['password', 'sign_in'] })
  const signedOut = await attacker.postToService(setup.reference, 'email/change', { newEmail: 'mallory@evil.example' })
  t.same([signedOut.status, signedOut.body.reason], [401, 'signed_out'])
  const accountId = (await setup.reference.services.store.findAccountByEmail('ada@example.com'))!.id
  t.equal(await setup.reference.services.store.countEmailLinksSince('change-email', accountId, 0), 0, 'no link was made')
})

t.test('opened in a browser that never signed in to the account (a mail scanner), the link changes nothing and still works', async (t) => {
  const setup = await setUp(t)
  t.equal((await askFor(setup, NEW_ADDRESS)).status, 200)
  const { link, token } = await linkSentTo(setup, NEW_ADDRESS)
  const scanned = await openLink(link)
  t.match(scanned.location, /notice=email-change-in-known-browser/)
  t.ok(await setup.reference.services.store.findAccountByEmail('ada@example.com'), 'the address is as it was')
  const confirmed = await confirm(setup, token)
  t.same([confirmed.status, Object.keys(confirmed.body)], [200, ['success']], 'the owner confirms it from the page afterwards')
  t.ok(await setup.reference.services.store.findAccountByEmail(NEW_ADDRESS))
})

t.test('a forged, used or expired token confirms nothing', async (t) => {
  const setup = await setUp(t)
  for (const forged of ['A'.repeat(43), 'not a token', 42, undefined]) {
    const refused = await confirm(setup, forged)
    t.equal(refused.status, 400, `${String(forged)}: 400`)
    t.type(refused.body.error, 'string')
  }
  const forgedLink = await openLink(`${setup.reference.base}/accounts/confirmEmail?token=${'A'.repeat(43)}`, { cookie: setup.ada.browser.cookie! })
  t.match(forgedLink.location, /notice=email-change-link-invalid/, 'a forged link lands on a notice that says so')

  t.equal((await askFor(setup, NEW_ADDRESS)).status, 200)
  const { token } = await linkSentTo(setup, NEW_ADDRESS)
  t.equal((await confirm(setup, token)).status, 200)
  t.equal((await confirm(setup, token)).status, 400, 'used')

  t.equal((await askFor(setup, 'ada@third.example', await signedInOwner(setup.reference, NEW_ADDRESS, { registered: true }))).status, 200)
  const late = await linkSentTo(setup, 'ada@third.example', 2)
  setup.clock.passDays(1)
  t.equal((await confirm(setup, late.token)).status, 400, 'expired after a day')
  t.ok(await setup.reference.services.store.findAccountByEmail(NEW_ADDRESS), 'the address is as it was')
})

t.test('a taken address is answered as a free one; only its holder is told, and the account keeps its address', async (t) => {
  const setup = await setUp(t)
  await registerAccount(setup.reference.base, 'bob@example.com')
  const taken = await askFor(setup, 'BOB@example.com')
  const free = await askFor(setup, NEW_ADDRESS)
  t.same([taken.status, taken.body], [free.status, free.body], 'the same answer for a taken address and a free one')

  const [attempt] = await waitForSubject(setup.reference.dataDir, /^Someone tried to move a .+ account to your address/)
  t.match(attempt!.raw, /^To: bob@example\.com/m, 'Bob is told someone tried')
  t.notMatch(attempt!.decoded, /ada@example\.com/, 'without naming the account that tried')
  await linkSentTo(setup, NEW_ADDRESS)
  const toBob = (await outboxEmails(setup.reference.dataDir)).filter((email) => /^To: bob@example\.com/im.test(email.raw))
  t.equal(toBob.filter((email) => /Confirm your new email address/.test(email.raw)).length, 0, 'and gets no link')
  t.ok(await setup.reference.services.store.findAccountByEmail('ada@example.com'), 'Ada keeps her address')
})

t.test('an address taken between the request and the link is refused at the link, and the account keeps its own', async (t) => {
  const setup = await setUp(t)
  t.equal((await askFor(setup, NEW_ADDRESS)).status, 200)
  const { token } = await linkSentTo(setup, NEW_ADDRESS)
  await registerAccount(setup.reference.base, NEW_ADDRESS)
  const refused = await confirm(setup, token)
  t.equal(refused.status, 400)
  t.match(refused.body.error, /another account/)
  t.ok(await setup.reference.services.store.findAccountByEmail('ada@example.com'))
})

t.test('bad input gets a clear answer: not an address, the account\'s own, too many changes', async (t) => {
  const setup = await setUp(t)
  for (const [what, value] of [['not an address', 'ada'], ['none', undefined], ['not text', 7]] as const) {
    const refused = await askFor(setup, value)
    t.equal(refused.status, 400, `${what}: 400`)
    t.type(refused.body.error, 'string')
  }
  t.match((await askFor(setup, 'ADA@example.com')).body, { error: /already/ }, 'the account\'s own address, in any case')
  for (let asked = 0; asked < 5; asked++) t.equal((await askFor(setup, `ada+${asked}@new.example`)).status, 200)
  const tooMany = await askFor(setup, 'ada+6@new.example')
  t.equal(tooMany.status, 429, 'a sixth within the hour')
  t.match(tooMany.body.error, /hour/)
})

t.test('"this wasn\'t me": the new password saved from the old address\'s link puts it back and ends every session', async (t) => {
  const setup = await setUp(t)
  const { store } = setup.reference.services
  const accountId = (await store.findAccountByEmail('ada@example.com'))!.id
  // A reset link the old address was sent before the change: its holder may no longer be the owner.
  t.equal((await postJson(setup.reference.base, '/accounts/resetPasswordRequest', { email: 'ada@example.com' })).status, 200)
  const earlierReset = resetLinkOf(await waitForEmail(setup.reference.dataDir, 1, 'reset')).token
  t.equal((await askFor(setup, NEW_ADDRESS)).status, 200)
  t.equal((await confirm(setup, (await linkSentTo(setup, NEW_ADDRESS)).token)).status, 200)
  const stale = await postJson(setup.reference.base, '/accounts/resetPassword', { token: earlierReset, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })
  t.equal(stale.status, 400, 'the reset link sent to the old address before the change is void')

  const [notice] = await waitForSubject(setup.reference.dataDir, /^The email address of your .+ account was changed/)
  const { token } = accountsLinkOf(notice!, 'undoChange')
  const landed = await openLink(`${setup.reference.base}/accounts/undoChange?token=${token}`)
  t.match(landed.location, /view=setPassword/, 'the link lands on the set-password view, changing nothing yet')
  t.equal(await addressOf(setup, accountId), NEW_ADDRESS)
  const undone = await postJson(setup.reference.base, '/accounts/resetPassword', { token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })
  t.equal(undone.status, 200)
  t.equal(await addressOf(setup, accountId), 'ada@example.com', 'the old address is back')
  t.equal((await postJson(setup.reference.base, '/accounts/token/refresh', { refresh: setup.ada.refresh })).status, 401, 'every session has ended')
  t.equal((await postLogin(setup.reference.base, 'ada@example.com', NEW_PASSWORD)).status, 200, 'the old address signs in with the new password')
  t.equal((await postLogin(setup.reference.base, NEW_ADDRESS, NEW_PASSWORD)).status, 401, 'the new address no more')
  t.match(setup.logs.lines.findLast((line) => line.audit === 'change.undone'), { removed: 'email' })
  const [told] = await waitForSubject(setup.reference.dataDir, /^The password of your .+ account was changed/)
  t.match(told!.raw, /^To: ada@example\.com/m, 'the new password is told to the address put back')
})

t.test('the link and the taken address\'s notice are written in the language of the page that asked', async (t) => {
  const setup = await setUp(t)
  await registerAccount(setup.reference.base, 'bob@example.com')
  const arabic = { ...setup.ada.bearer, 'accept-language': 'ar' }
  t.equal((await setup.ada.browser.postToService(setup.reference, 'email/change', { newEmail: NEW_ADDRESS }, arabic)).status, 200)
  t.equal((await setup.ada.browser.postToService(setup.reference, 'email/change', { newEmail: 'bob@example.com' }, arabic)).status, 200)
  // Logged once each email is written.
  await setup.logs.waitFor((line) => line.audit === 'email.change-link-sent')
  await setup.logs.waitFor((line) => line.audit === 'email.change-attempt-notice-sent')
  const emails = await outboxEmails(setup.reference.dataDir)
  for (const to of [NEW_ADDRESS, 'bob@example.com']) {
    const [email, ...more] = emails.filter((candidate) => candidate.raw.includes(`To: ${to}`) && candidate.decoded.includes('<html lang="ar"'))
    t.ok(email !== undefined && more.length === 0, `${to}: one email, in Arabic`)
    t.match(email?.decoded, '<html lang="ar" dir="rtl">', `${to}: right to left`)
  }
  const link = emails.find((email) => email.raw.includes(`To: ${NEW_ADDRESS}`))!
  t.match(link.decoded, /\/accounts\/confirmEmail\?token=[\w-]+&ui_locales=ar/, 'the link carries the language to the page it lands on')
})
