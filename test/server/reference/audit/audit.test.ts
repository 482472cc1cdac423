import { createHash } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { rootSecretFile } from '../../../../server/reference/keys/derived-secrets.js'
import t from 'tap'
import { addressThrottleKey, loginLockDuration } from '../../../../server/reference/sign-in/login-throttles.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, temporaryDataDir, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'

const PERSON = 'Audit.Person@Example.com'
const WRONG_PASSWORD = 'a wrong guess of hers'
const NEW_PASSWORD = 'her new secret passphrase'
const GOOGLE_CREDENTIAL = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJnb29nbGUtc2VjcmV0In0.c2lnbmF0dXJlLXNlY3JldA'

t.test('every authentication event is logged, with no password, token or email address in the log', async (t) => {
  const logs = logCollector()
  // No grace: the second presentation of a refresh token below is theft at once.
  const { base, dataDir, services } = await startReference(t, { logStream: logs.stream, env: { REFRESH_REUSE_GRACE_SECONDS: '0' } })

  await registerAccount(base, PERSON)
  await postJson(base, '/accounts/register', { email: PERSON, password: `${GOOD_PASSWORD} too`, confirm_password: `${GOOD_PASSWORD} too` })
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
  const sentAfterAnswering = new Set(['verify.email-sent', 'browser.notice-sent', 'browser.notice-suppressed', 'change.notice-sent'])
  await logs.waitFor((line) => line.audit === 'browser.notice-suppressed')
  await logs.waitFor((line) => line.audit === 'change.notice-sent')
  t.same(auditEvents(logs).filter((event) => sentAfterAnswering.has(event)).sort(),
    ['browser.notice-sent', 'browser.notice-suppressed', 'change.notice-sent', 'verify.email-sent'],
    'the verification link; the first login from a new browser (fetch keeps no cookies) is told, the next one held back; the new password is told')
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
    // The address was never verified: the reset's link proves it, and claims the account first.
    'account.claimed',
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

  const failed = logs.lines.find((line) => line.audit === 'login.failed')!
  const pseudonym = String(failed.emailPseudonym)
  t.equal(failed.emailDomain, 'example.com', 'the email is reduced to its domain…')
  t.match(pseudonym, /^[0-9a-f]{16}$/, '…and a pseudonym that follows one address through the log')
  t.equal(failed.emailHash, undefined, 'no unkeyed hash any more')
  t.equal(failed.failures, 1)
  t.equal(failed.clientAddress, '127.0.0.1', 'the client address the edge reported')
  t.ok(logs.lines.filter((line) => line.emailPseudonym !== undefined).every((line) => line.emailPseudonym === pseudonym), 'in any case of the address')
  t.equal(services.pseudonyms.of(PERSON.toUpperCase()), pseudonym, 'the operator, who holds the key, can name any address')
  const sent = logs.lines.find((line) => line.audit === 'reset.email-sent')!
  t.equal(sent.outboxFile, email.file, 'the log says which outbox file holds the reset email, never the link')
  t.match(logs.lines.find((line) => line.audit === 'google.register.failed')!.reason, /did not verify|not configured/)
})

t.test('a list of candidate addresses does not reverse the pseudonyms in the log; one address keeps its pseudonym across restarts', async (t) => {
  // The attack: whoever reads the log hashes a list of addresses (and whatever else they know) and
  // looks for the result in it, as unkeyed SHA-256 prefixes allowed.
  const dataDir = temporaryDataDir(t)
  const logs = logCollector()
  const first = await startReference(t, { dataDir, logStream: logs.stream })
  await postJson(first.base, '/accounts/v2/login', { email: PERSON, password: WRONG_PASSWORD })
  const pseudonym = String(logs.lines.find((line) => line.audit === 'login.failed')!.emailPseudonym)
  const candidates = ['someone@example.com', PERSON, PERSON.toLowerCase(), 'audit.person', 'Audit.Person', `  ${PERSON.toLowerCase()}  `]
  const known = [TEST_PUBLIC_URL, 'threshold', 'Threshold', 'audit email pseudonym', 'example.com', '']
  const digests: string[] = []
  for (const candidate of candidates) {
    for (const input of [candidate, ...known.flatMap((extra) => [`${extra}${candidate}`, `${candidate}${extra}`, `${extra}:${candidate}`])]) {
      for (const algorithm of ['sha256', 'sha1', 'sha512', 'md5']) {
        const digest = createHash(algorithm).update(input)
        const bytes = digest.digest()
        digests.push(bytes.toString('hex'), bytes.toString('base64url'), bytes.toString('base64'))
      }
    }
  }
  t.ok(digests.length > 1000, `${digests.length} digests of the candidates tried`)
  t.notOk(digests.some((digest) => digest.includes(pseudonym)), 'no hash of a candidate address, alone or with anything known, holds the pseudonym')
  t.notOk(logs.text().includes(createHash('sha256').update(PERSON.toLowerCase()).digest('hex').slice(0, 12)), 'nor is the old unkeyed prefix in the log')

  await first.close()
  const again = logCollector()
  const second = await startReference(t, { dataDir, logStream: again.stream })
  await postJson(second.base, '/accounts/v2/login', { email: PERSON.toUpperCase(), password: WRONG_PASSWORD })
  t.equal(again.lines.find((line) => line.audit === 'login.failed')!.emailPseudonym, pseudonym, 'after a restart the same address has the same pseudonym')
  t.equal((await stat(rootSecretFile(dataDir))).mode & 0o777, 0o600, 'its key lives beside the signing key, readable by its owner only')

  const elsewhere = logCollector()
  const other = await startReference(t, { logStream: elsewhere.stream })
  await postJson(other.base, '/accounts/v2/login', { email: PERSON, password: WRONG_PASSWORD })
  t.not(elsewhere.lines.find((line) => line.audit === 'login.failed')!.emailPseudonym, pseudonym, 'another deployment, with another key, names it otherwise')
})
