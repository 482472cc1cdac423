import { decodeJwt } from 'jose'
import t from 'tap'
import { VERIFICATION_EMAILS_PER_HOUR, VERIFICATION_RESEND_INTERVAL_MS } from '../../../../server/reference/registration/email-verification.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { accountsLinkOf, outboxEmails, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { openLink } from '../../../fixtures/http/open-link.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const VERIFIED_LANDING = `${TEST_PUBLIC_URL}/?view=login&notice=email-verified&ui_locales=en`
const REFUSED_LANDING = `${TEST_PUBLIC_URL}/?view=login&notice=verify-link-invalid&ui_locales=en`
const RESENT = { success: 'If this address has an account that is not verified yet, we have sent it a new link. The link works once, within 24 hours.' }

/** An emailed link, pointed at the edge under test instead of the public URL. */
const onEdge = (base: string, link: string): string => link.replace(TEST_PUBLIC_URL, base)

const emailVerified = (tokens: { auth: string }): unknown => decodeJwt(tokens.auth).email_verified

/** Waits a moment for emails that would be sent after the answer, so that their absence means something. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300))

t.test('registration emails a verification link; opening it once marks the address verified in the tokens', async (t) => {
  const logs = logCollector()
  const { base, dataDir } = await startReference(t, { logStream: logs.stream })
  const vera = await registerAccount(base, 'Vera@Example.com')
  t.equal(emailVerified(await loginTokens(base, 'vera@example.com')), false, 'the spec\'s flow: login right after registering, unverified')

  const email = await waitForEmail(dataDir, 1, 'verify')
  t.match(email.raw, /^To: Vera@example\.com$/m)
  t.match(email.raw, /^Subject: Verify your email address for Threshold$/m)
  t.match(email.decoded, /The link works once, within 24 hours\./)
  const { link, token } = accountsLinkOf(email, 'verifyEmail')
  t.equal(link, `${TEST_PUBLIC_URL}/accounts/verifyEmail?token=${token}`)

  // Opened where nobody signed in (a mail scanner, another device): nothing happens, and the link stays.
  const elsewhere = await openLink(onEdge(base, link))
  t.same([elsewhere.status, elsewhere.location], [303, `${TEST_PUBLIC_URL}/?view=login&notice=verify-in-known-browser&ui_locales=en`])
  t.equal(emailVerified(await loginTokens(base, 'vera@example.com')), false, 'not verified')

  const opened = await openLink(onEdge(base, link), { cookie: vera.cookie! })
  t.same([opened.status, opened.location], [303, VERIFIED_LANDING], 'in the browser she registered in: the login view with the success notice')
  t.equal(opened.headers.get('cache-control'), 'no-store')
  t.equal(emailVerified(await loginTokens(base, 'vera@example.com')), true)

  const again = await openLink(onEdge(base, link), { cookie: vera.cookie! })
  t.same([again.status, again.location], [303, REFUSED_LANDING], 'the link works once')
  t.same(auditEvents(logs).filter((event) => event.startsWith('verify.')), ['verify.email-sent', 'verify.needs-known-browser', 'verify.completed', 'verify.refused'])
  t.notOk(logs.text().includes(token), 'the token is never logged')
})

t.test('a link expires after 24 hours', async (t) => {
  let offset = 0
  const { base, dataDir } = await startReference(t, { now: () => Date.now() + offset })
  await registerAccount(base, 'late@example.com')
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail')
  offset = 24 * 3600_000 + 1000
  t.equal((await openLink(onEdge(base, link))).location, REFUSED_LANDING)
  t.equal(emailVerified(await loginTokens(base, 'late@example.com')), false, 'nothing was verified')
})

t.test('forged, malformed and foreign verification links are refused alike and change nothing', async (t) => {
  const { base, dataDir, services } = await startReference(t)
  const owner = await registerAccount(base, 'owner@example.com')
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail')
  const forged = 'A'.repeat(43)
  for (const query of [`token=${forged}`, 'token=', '', 'token=%3Cscript%3E', `token=${'x'.repeat(5000)}`, 'token=a&token=b']) {
    const answer = await openLink(`${base}/accounts/verifyEmail?${query}`, { cookie: owner.cookie! })
    t.same([answer.status, answer.location], [303, REFUSED_LANDING], `?${query.slice(0, 40)}`)
  }
  t.equal((await services.store.findAccountByEmail('owner@example.com'))?.emailVerifiedAt, null)
  t.equal((await openLink(onEdge(base, link), { cookie: owner.cookie! })).location, VERIFIED_LANDING, 'the real link still works afterwards')
  t.equal((await postJson(base, '/accounts/verifyEmail', {})).status, 405, 'only GET opens a link')
})

t.test('a password reset verifies the address: its link came by email', async (t) => {
  const { base, dataDir } = await startReference(t)
  await registerAccount(base, 'resetter@example.com')
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'resetter@example.com' })
  const reset = await waitForEmail(dataDir, 1, 'reset')
  const token = /token=([\w-]+)/.exec(reset.decoded)![1]!
  t.equal((await postJson(base, '/accounts/resetPassword', { token, password: 'a brand new passphrase', confirm_password: 'a brand new passphrase' })).status, 200)
  t.equal(emailVerified(await loginTokens(base, 'resetter@example.com', 'a brand new passphrase')), true)
})

t.test('asking for a new link answers alike for every address; only an unverified account gets one', async (t) => {
  const { base, dataDir } = await startReference(t)
  const pending = await registerAccount(base, 'pending@example.com')
  const doneBrowser = await registerAccount(base, 'done@example.com')
  await waitForEmail(dataDir, 2, 'verify')
  const done = (await outboxEmails(dataDir, 'verify')).find((email) => /^To: done@/m.test(email.raw))!
  await openLink(onEdge(base, accountsLinkOf(done, 'verifyEmail').link), { cookie: doneBrowser.cookie! })

  for (const email of ['pending@example.com', 'done@example.com', 'nobody@example.com']) {
    const answer = await postJson(base, '/accounts/verifyEmailRequest', { email })
    t.same([answer.status, answer.body], [200, RESENT], email)
  }
  const resent = await waitForEmail(dataDir, 3, 'verify')
  await settle()
  t.equal((await outboxEmails(dataDir, 'verify')).length, 3, 'one new link, for the unverified account')
  t.match(resent.raw, /^To: pending@example\.com$/m)
  t.equal((await openLink(onEdge(base, accountsLinkOf(resent, 'verifyEmail').link), { cookie: pending.cookie! })).location, VERIFIED_LANDING, 'the new link works')

  for (const body of [{}, { email: 'not an address' }, { email: ['pending@example.com'] }, null]) {
    const answer = await postJson(base, '/accounts/verifyEmailRequest', body)
    t.equal(answer.status, 400, JSON.stringify(body))
    t.type(answer.body.error, 'string')
  }
})

t.test('a storm of requests for new links sends one, then one a minute, and five an hour at most', async (t) => {
  let offset = 0
  const logs = logCollector()
  const { base, dataDir } = await startReference(t, { now: () => Date.now() + offset, logStream: logs.stream })
  await registerAccount(base, 'stormy@example.com')
  await waitForEmail(dataDir, 1, 'verify')

  const storm = await Promise.all(Array.from({ length: 30 }, () => postJson(base, '/accounts/verifyEmailRequest', { email: 'stormy@example.com' })))
  t.ok(storm.every((answer) => answer.status === 200 && answer.body.success === RESENT.success), 'every request gets the same answer')
  await waitForEmail(dataDir, 2, 'verify')
  await settle()
  t.equal((await outboxEmails(dataDir, 'verify')).length, 2, '30 requests at once: one new link')

  for (let minute = 1; minute <= VERIFICATION_EMAILS_PER_HOUR + 1; minute++) {
    offset += VERIFICATION_RESEND_INTERVAL_MS + 1
    await postJson(base, '/accounts/verifyEmailRequest', { email: 'stormy@example.com' })
    await postJson(base, '/accounts/verifyEmailRequest', { email: 'stormy@example.com' })
  }
  await settle()
  t.equal((await outboxEmails(dataDir, 'verify')).length, VERIFICATION_EMAILS_PER_HOUR, `${VERIFICATION_EMAILS_PER_HOUR} links an hour, however long the asking goes on`)
  t.ok(auditEvents(logs).includes('verify.suppressed'), 'the refusals are audited')
})

t.test('with REQUIRE_VERIFIED_EMAIL, login waits for the verified address; a new link then lets it in', async (t) => {
  const { base, dataDir } = await startReference(t, { env: { REQUIRE_VERIFIED_EMAIL: 'true' } })
  const registering = await registerAccount(base, 'strict@example.com')
  const first = await waitForEmail(dataDir, 1, 'verify')

  const refused = await postJson(base, '/accounts/v2/login', { email: 'strict@example.com', password: GOOD_PASSWORD })
  t.equal(refused.status, 403)
  t.same(refused.body, {
    error: 'Your email address is not verified yet. Open the link we sent you, or ask for a new one.',
    reason: 'email_not_verified'
  })
  // Whoever knows the password without the address must not become a known browser of the account.
  t.notOk(refused.headers.get('set-cookie'), 'no browser is recorded for a refused login')
  const wrong = await postJson(base, '/accounts/v2/login', { email: 'strict@example.com', password: 'not the password at all' })
  t.same([wrong.status, wrong.body], [401, { error: 'Invalid email or password.' }], 'a wrong password learns nothing about verification')

  t.same((await postJson(base, '/accounts/verifyEmailRequest', { email: 'strict@example.com' })).body, RESENT)
  const second = await waitForEmail(dataDir, 2, 'verify')
  t.not(accountsLinkOf(second, 'verifyEmail').token, accountsLinkOf(first, 'verifyEmail').token, 'a new link')
  t.equal((await openLink(onEdge(base, accountsLinkOf(second, 'verifyEmail').link), { cookie: registering.cookie! })).location, VERIFIED_LANDING)
  t.equal(emailVerified(await loginTokens(base, 'strict@example.com')), true, 'signed in, verified')
  t.equal((await openLink(onEdge(base, accountsLinkOf(first, 'verifyEmail').link), { cookie: registering.cookie! })).location, VERIFIED_LANDING,
    'the first link, unused and unexpired, still works (and verifies again nothing new)')
})

t.test('REQUIRE_VERIFIED_EMAIL accepts true or false only', async (t) => {
  await t.rejects(startReference(t, { env: { REQUIRE_VERIFIED_EMAIL: 'yes' } }), /REQUIRE_VERIFIED_EMAIL must be true or false \(got "yes"\)/)
})
