import { readFile, stat } from 'node:fs/promises'
import t from 'tap'
import { RESET_EMAILS_PER_HOUR } from '../../../../server/reference/password-reset/reset-request.js'
import { addressThrottleKey, loginLockDuration } from '../../../../server/reference/sign-in/login-throttles.js'
import { hashToken, newOpaqueToken } from '../../../../server/reference/sessions/tokens.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { outboxEmails, resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const REQUESTED = {
  success: 'If an account exists for this email, we have sent it a link to reset the password. The link works once, within 30 minutes.'
}
const CHANGED = { success: 'Your password has been changed. You can now log in with it.' }
const LINK_REFUSED = { error: 'This password reset link is invalid, used or expired. Please request a new one.' }
const NEW_PASSWORD = 'a brand new passphrase'

function setPassword (base: string, token: string, password = NEW_PASSWORD, confirmation = password) {
  return postJson(base, '/accounts/resetPassword', { token, password, confirm_password: confirmation })
}

t.test('a reset request answers the same for a known and an unknown email; only the known one gets an email', async (t) => {
  const logs = logCollector()
  const { base, dataDir } = await startReference(t, { logStream: logs.stream })
  await registerAccount(base, 'Reset.Me@example.com')
  const unknown = await postJson(base, '/accounts/resetPasswordRequest', { email: 'nobody@example.com' })
  const known = await postJson(base, '/accounts/resetPasswordRequest', { email: 'reset.me@EXAMPLE.com' })
  t.same([unknown.status, unknown.body], [200, REQUESTED])
  t.same([known.status, known.body], [200, REQUESTED])
  t.equal(known.headers.get('cache-control'), 'no-store')

  const email = await waitForEmail(dataDir, 1, 'reset')
  t.equal((await outboxEmails(dataDir, 'reset')).length, 1, 'one email, for the account that exists')
  t.match(email.raw, /^To: Reset\.Me@example\.com$/m, 'sent to the address of the account')
  t.match(email.raw, /^Subject: Reset your Threshold password$/m)
  t.match(email.raw, /^From: Threshold <no-reply@signin\.example\.test>$/m)
  const { link, token } = resetLinkOf(email)
  t.equal(link, `${TEST_PUBLIC_URL}/?view=setPassword&token=${token}`, 'the link opens the page\'s set-password view')
  t.match(email.decoded, /The link works once, within 30 minutes\./)
  t.equal((await stat(email.file)).mode & 0o777, 0o600, 'the outbox file is readable by its owner only')
  t.same(auditEvents(logs).filter((event) => event.startsWith('reset.')), ['reset.requested', 'reset.requested', 'reset.email-sent'])
})

t.test('a reset link works once: the new password logs in, the old one no longer does, and a second use is refused', async (t) => {
  const { base, dataDir } = await startReference(t)
  await registerAccount(base, 'once@example.com')
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'once@example.com' })
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))

  t.same(await setPassword(base, token).then((answer) => [answer.status, answer.body]), [200, CHANGED])
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'once@example.com', password: NEW_PASSWORD })).status, 200)
  t.same((await postJson(base, '/accounts/v2/login', { email: 'once@example.com', password: GOOD_PASSWORD })).body, { error: 'Invalid email or password.' })

  const again = await setPassword(base, token, 'yet another passphrase')
  t.same([again.status, again.body], [400, LINK_REFUSED], 'a used link is refused')
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'once@example.com', password: NEW_PASSWORD })).status, 200, 'and changed nothing')
})

t.test('an expired reset link is refused and changes nothing', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'expired@example.com')
  const account = await services.store.findAccountByEmail('expired@example.com')
  const token = newOpaqueToken()
  await services.store.insertResetToken(hashToken(token), account!.id, Date.now() - 1)
  const answer = await setPassword(base, token)
  t.same([answer.status, answer.body], [400, LINK_REFUSED])
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'expired@example.com', password: GOOD_PASSWORD })).status, 200, 'the old password still works')
})

t.test('a reset link made up by a visitor is refused', async (t) => {
  const { base } = await startReference(t)
  const answer = await setPassword(base, newOpaqueToken())
  t.same([answer.status, answer.body], [400, LINK_REFUSED])
})

t.test('a completed reset ends every session of the account and lifts its login lock', async (t) => {
  const { base, dataDir, services } = await startReference(t)
  await registerAccount(base, 'sessions@example.com')
  const first = await loginTokens(base, 'sessions@example.com')
  const second = await loginTokens(base, 'sessions@example.com')
  for (let failure = 1; failure <= 9; failure++) {
    await services.store.recordLoginFailure(addressThrottleKey('sessions@example.com', '127.0.0.1'), loginLockDuration, Date.now())
  }
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'sessions@example.com' })
  t.same((await setPassword(base, resetLinkOf(await waitForEmail(dataDir, 1, 'reset')).token)).body, CHANGED)

  for (const [name, pair] of [['first', first], ['second', second]] as const) {
    const refreshed = await postJson(base, '/accounts/token/refresh', { refresh: pair.refresh })
    t.same([refreshed.status, refreshed.body], [401, { error: 'Your session has ended. Please log in again.' }], `the ${name} session has ended`)
  }
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'sessions@example.com', password: NEW_PASSWORD })).status, 200,
    'the owner can log in at once with the new password')
})

t.test('a completed reset voids the account\'s other reset links', async (t) => {
  const { base, dataDir } = await startReference(t)
  await registerAccount(base, 'two-links@example.com')
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'two-links@example.com' })
  const older = resetLinkOf(await waitForEmail(dataDir, 1, 'reset')).token
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'two-links@example.com' })
  const newer = resetLinkOf(await waitForEmail(dataDir, 2, 'reset')).token
  t.not(older, newer)
  t.same((await setPassword(base, newer)).body, CHANGED)
  const answer = await setPassword(base, older, 'an attacker\'s passphrase')
  t.same([answer.status, answer.body], [400, LINK_REFUSED], 'the older link no longer works')
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'two-links@example.com', password: NEW_PASSWORD })).status, 200)
})

t.test(`at most ${RESET_EMAILS_PER_HOUR} reset emails go to one account per hour; the answer does not change`, async (t) => {
  const logs = logCollector()
  const { base, dataDir } = await startReference(t, { logStream: logs.stream })
  await registerAccount(base, 'flooded@example.com')
  for (let request = 1; request <= RESET_EMAILS_PER_HOUR + 1; request++) {
    const answer = await postJson(base, '/accounts/resetPasswordRequest', { email: 'flooded@example.com' })
    t.same([answer.status, answer.body], [200, REQUESTED], `request ${request}: the usual answer`)
    if (request <= RESET_EMAILS_PER_HOUR) await waitForEmail(dataDir, request, 'reset')
  }
  const suppressed = await logs.waitFor((line) => line.audit === 'reset.suppressed')
  t.equal(suppressed.reason, 'hourly limit')
  t.equal((await outboxEmails(dataDir, 'reset')).length, RESET_EMAILS_PER_HOUR, 'the fourth email is not sent')
})

const badCompletions: Array<[string, Record<string, unknown>, string]> = [
  ['no token', { token: undefined, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, 'This password reset link is not valid. Please request a new one.'],
  ['a token with other characters', { token: 'a'.repeat(30) + '!', password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, 'This password reset link is not valid. Please request a new one.'],
  ['a token too short', { token: 'abc', password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, 'This password reset link is not valid. Please request a new one.'],
  ['no password', { confirm_password: NEW_PASSWORD }, 'Choose a password.'],
  ['a short password', { password: 'short', confirm_password: 'short' }, 'Your password must have at least 8 characters.'],
  ['a common password', { password: 'password123', confirm_password: 'password123' }, 'This password is too common. Please choose another.'],
  ['a confirmation that differs', { password: NEW_PASSWORD, confirm_password: `${NEW_PASSWORD}!` }, 'The passwords do not match.']
]

t.test('a reset completion with bad fields answers 400 with a readable error and leaves the link usable', async (t) => {
  const { base, dataDir } = await startReference(t)
  await registerAccount(base, 'retry@example.com')
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'retry@example.com' })
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  for (const [name, body, message] of badCompletions) {
    const answer = await postJson(base, '/accounts/resetPassword', { token, ...body })
    t.same([answer.status, answer.body], [400, { error: message }], name)
  }
  t.same((await setPassword(base, token)).body, CHANGED, 'the link still works after refused attempts')
})

t.test('a reset request with a bad email answers 400 and sends nothing', async (t) => {
  const { base, dataDir } = await startReference(t)
  for (const [body, message] of [[{}, 'Enter your email address.'], [{ email: 'two@at@example.com' }, 'Enter a valid email address.'], [{ email: 'x@localhost' }, 'Enter a valid email address.']] as const) {
    const answer = await postJson(base, '/accounts/resetPasswordRequest', body)
    t.same([answer.status, answer.body], [400, { error: message }], JSON.stringify(body))
  }
  t.same(await outboxEmails(dataDir, 'reset'), [])
  t.notOk(await readFile(`${dataDir}/outbox`).catch(() => null), 'no outbox was made')
})
