import { createHash } from 'node:crypto'
import t from 'tap'
import { addressThrottleKey, loginLockDuration } from '../../../server/reference/login-throttles.js'
import {
  auditEvents,
  GOOD_PASSWORD,
  logCollector,
  loginTokens,
  postJson,
  registerAccount,
  resetLinkOf,
  startReference,
  waitForEmail
} from '../../fixtures/reference.js'

const PERSON = 'Audit.Person@Example.com'
const WRONG_PASSWORD = 'a wrong guess of hers'
const NEW_PASSWORD = 'her new secret passphrase'
const GOOGLE_CREDENTIAL = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJnb29nbGUtc2VjcmV0In0.c2lnbmF0dXJlLXNlY3JldA'

t.test('every authentication event is logged, with no password, token or email address in the log', async (t) => {
  const logs = logCollector()
  const { base, dataDir, services } = await startReference(t, { logStream: logs.stream })

  await registerAccount(base, PERSON)
  await postJson(base, '/accounts/register', { email: PERSON, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
  await postJson(base, '/accounts/register', { email: PERSON, password: 'short', confirm_password: 'short' })
  const first = await loginTokens(base, PERSON.toLowerCase())
  await postJson(base, '/accounts/v2/login', { email: PERSON, password: WRONG_PASSWORD })
  await postJson(base, '/accounts/v2/login', { email: PERSON, password: GOOD_PASSWORD, insecure_allowed_orgs: ['acme'] })
  const rotated = (await postJson(base, '/accounts/token/refresh', { refresh: first.refresh })).body as { auth: string, refresh: string }
  await postJson(base, '/accounts/token/refresh', { refresh: first.refresh })
  await postJson(base, '/accounts/token/refresh', { refresh: 'never-issued-refresh-token' })
  const second = await loginTokens(base, PERSON)
  await postJson(base, '/accounts/token/revoke', { refresh: second.refresh })
  await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, { authorization: `Bearer ${GOOGLE_CREDENTIAL}` })
  await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, { authorization: `Bearer ${GOOGLE_CREDENTIAL}` })
  await postJson(base, '/accounts/resetPasswordRequest', { email: PERSON })
  const email = await waitForEmail(dataDir, 1, 'reset')
  const { token: resetToken } = resetLinkOf(email)
  await postJson(base, '/accounts/resetPassword', { token: resetToken, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })
  await postJson(base, '/accounts/resetPassword', { token: resetToken, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })
  for (let failure = 1; failure <= 9; failure++) {
    await services.store.recordLoginFailure(addressThrottleKey(PERSON, '127.0.0.1'), loginLockDuration, Date.now())
  }
  await postJson(base, '/accounts/v2/login', { email: PERSON, password: NEW_PASSWORD })

  // Emails other than the reset are sent after their answers, at moments of their own: checked apart.
  const sentAfterAnswering = new Set(['verify.email-sent', 'browser.notice-sent', 'browser.notice-suppressed'])
  await logs.waitFor((line) => line.audit === 'browser.notice-suppressed')
  t.same(auditEvents(logs).filter((event) => sentAfterAnswering.has(event)).sort(),
    ['browser.notice-sent', 'browser.notice-suppressed', 'verify.email-sent'],
    'the verification link; the first login from a new browser (fetch keeps no cookies) is told, the next one held back')
  t.same(auditEvents(logs).filter((event) => !sentAfterAnswering.has(event)), [
    'register.succeeded',
    'register.refused',
    'register.refused',
    'login.succeeded',
    'login.failed',
    'login.refused-organization',
    'token.refreshed',
    'token.reuse-detected',
    'token.refused',
    'login.succeeded',
    'token.revoked',
    'google.register.failed',
    'google.login.failed',
    'reset.requested',
    'reset.email-sent',
    'reset.completed',
    'reset.refused',
    'login.throttled'
  ], 'each event, in order')

  const text = logs.text()
  const secrets = {
    password: GOOD_PASSWORD,
    'wrong password': WRONG_PASSWORD,
    'new password': NEW_PASSWORD,
    'auth token': first.auth,
    'refresh token': first.refresh,
    'rotated auth token': rotated.auth,
    'rotated refresh token': rotated.refresh,
    'reset token': resetToken,
    'Google credential': GOOGLE_CREDENTIAL,
    'the email': PERSON,
    'the email in lower case': PERSON.toLowerCase(),
    'the email\'s local part': 'audit.person'
  }
  for (const [name, secret] of Object.entries(secrets)) {
    t.notOk(text.toLowerCase().includes(secret.toLowerCase()), `no ${name} in the log`)
  }

  const hash = createHash('sha256').update(PERSON.toLowerCase()).digest('hex').slice(0, 12)
  const failed = logs.lines.find((line) => line.audit === 'login.failed')!
  t.equal(failed.emailDomain, 'example.com', 'the email is reduced to its domain…')
  t.equal(failed.emailHash, hash, '…and a short hash that follows one address through the log')
  t.equal(failed.failures, 1)
  t.equal(failed.clientAddress, '127.0.0.1', 'the client address the edge reported')
  t.ok(logs.lines.filter((line) => line.emailHash !== undefined).every((line) => line.emailHash === hash), 'in any case of the address')
  const sent = logs.lines.find((line) => line.audit === 'reset.email-sent')!
  t.equal(sent.outboxFile, email.file, 'the log says which outbox file holds the reset email, never the link')
  t.match(logs.lines.find((line) => line.audit === 'google.register.failed')!.reason, /did not verify|not configured/)
})
