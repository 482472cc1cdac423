import t from 'tap'
import { runConformanceCli } from '../../conformance/cli.js'
import { contractFor } from '../../conformance/contract-file.js'
import { runSuite } from '../../conformance/suite.js'
import type { ProbeOptions, Row } from '../../conformance/rows.js'
import { createHash, randomBytes } from 'node:crypto'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../fixtures/google/google-identity.js'
import { opensslSkip } from '../fixtures/sso/sso-certificates.js'
import { OIDC_DOMAIN, startSsoStack } from '../fixtures/sso/sso-service.js'
import { startReference } from '../fixtures/servers/reference.js'
import { postJson } from '../fixtures/http/post-json.js'
import { registerAccount } from '../fixtures/registration/registration.js'

const NO_OPTIONS: ProbeOptions = { googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null }
const { contract } = contractFor(null)

const failed = (rows: readonly Row[]): Row[] => rows.filter((row) => row.result === 'fail')

t.test('the reference service passes through the edge (its own port answers the edge only), with a throwaway account', async (t) => {
  const reference = await startReference(t)
  for (const [where, url] of [['through the edge', `${reference.base}/accounts`]] as const) {
    const announced: string[] = []
    const report = await runSuite({ accountsUrl: new URL(url), timeoutMs: 20_000, account: null, contract, probe: NO_OPTIONS }, (line) => announced.push(line))
    t.same(failed(report.rows), [], `no row fails ${where}`)
    t.match(report.throwawayAccount, /^conformance-[0-9a-f]+@example\.com$/, 'a throwaway account was registered')
    t.match(announced.join('\n'), /throwaway account, conformance-[0-9a-f]+@example\.com/, 'and the operator is told')
    t.ok(report.rows.some((row) => row.check.startsWith('registering a taken address') && row.result === 'advisory'),
      'the spec\'s 409 for a taken address is an advisory row, not a failure')
    t.ok(report.rows.filter((row) => row.result === 'pass').length >= 25, 'most rows ran and passed')
  }
})

t.test('with REQUIRE_VERIFIED_EMAIL, a taken address answers alike and passes; a named, verified account signs in', async (t) => {
  const reference = await startReference(t, { env: { REQUIRE_VERIFIED_EMAIL: 'true' } })
  const email = 'operator-test@example.com'
  await registerAccount(reference.base, email, 'Operator test password 1')
  const account = await reference.services.store.findAccountByEmail(email)
  await reference.services.store.markEmailVerified(account!.id, Date.now())
  const report = await runSuite({ accountsUrl: new URL(`${reference.base}/accounts`), timeoutMs: 20_000, account: { email, password: 'Operator test password 1' }, contract, probe: NO_OPTIONS })
  t.same(failed(report.rows), [])
  t.equal(report.throwawayAccount, null, 'no throwaway account when one is named')
  t.equal(report.rows.find((row) => row.check.startsWith('registering a taken address'))?.result, 'pass')
  t.equal(report.rows.find((row) => row.check === 'the test account signs in')?.result, 'pass')
})

t.test('the command prints the table and the summary and exits 0 against the reference service', async (t) => {
  const reference = await startReference(t)
  let stdout = ''
  const status = await runConformanceCli(['--accounts-url', `${reference.base}/accounts`, '--timeout-ms', '20000'], { stdout: (text) => { stdout += text }, stderr: () => {} })
  t.equal(status, 0)
  t.match(stdout, /call +\| check +\| result +\| expected +\| got/)
  t.match(stdout, /conformance PASSED: \d+ passed, 0 failed, \d+ skipped, \d+ advisory/)
  t.notMatch(stdout, /Conformance-[A-Za-z0-9_-]{24}-9!/, 'the throwaway password is never printed')
})

t.test('with Google set up, the reference service refuses the forged tokens and signs in with a real one', async (t) => {
  const google = await startGoogleStandIn(t)
  const reference = await startReference(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  const googleEmail = 'google-person@example.com'
  const nonceFor = (secret: string): string => createHash('sha256').update(secret).digest('base64url')
  const registrationSecret = randomBytes(32).toString('base64url')
  const registration = await postJson(`${reference.base}/accounts`, '/auth/register', { register_method: 'GOOGLE', google_nonce_secret: registrationSecret },
    { authorization: `Bearer ${await google.credential({ email: googleEmail, sub: '2002', nonce: nonceFor(registrationSecret) })}` })
  t.equal(registration.status, 200)
  const loginSecret = randomBytes(32).toString('base64url')
  const googleToken = await google.credential({ email: googleEmail, sub: '2002', nonce: nonceFor(loginSecret) })
  const report = await runSuite({
    accountsUrl: new URL(`${reference.base}/accounts`),
    timeoutMs: 20_000,
    account: null,
    contract,
    probe: { ...NO_OPTIONS, googleToken, googleEmail, googleNonceSecret: loginSecret, googleClientId: TEST_GOOGLE_CLIENT_ID }
  })
  t.same(failed(report.rows), [])
  const resultOf = (check: string): string | undefined => report.rows.find((row) => row.check.startsWith(check))?.result
  t.equal(resultOf('a real Google ID token signs in'), 'pass')
  t.equal(resultOf('a Google ID token signed by a key that is not Google\'s is refused'), 'pass')
  t.equal(resultOf('an unsigned Google ID token'), 'pass')
})

t.test('with single sign-on set up, a start for its domain answers an sso_url, reported without its query string', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t)
  const report = await runSuite({
    accountsUrl: new URL(`${stack.publicUrl}/accounts`), timeoutMs: 20_000, account: null, contract, probe: { ...NO_OPTIONS, ssoEmail: `someone@${OIDC_DOMAIN}` }
  })
  t.same(failed(report.rows), [])
  const start = report.rows.find((row) => row.check.startsWith('a start for an address with single sign-on'))
  t.equal(start?.result, 'pass')
  t.match(start?.got, /^200 \{"sso_url":"http:\/\/127\.0\.0\.1:\d+\/[^"?]*\?…"\}$/, 'the provider\'s state and nonce are not shown')
})

t.test('a throwaway account that must verify its address first: the rows needing its tokens are skipped, saying why', async (t) => {
  const reference = await startReference(t, { env: { REQUIRE_VERIFIED_EMAIL: 'true' } })
  const report = await runSuite({ accountsUrl: new URL(`${reference.base}/accounts`), timeoutMs: 20_000, account: null, contract, probe: NO_OPTIONS })
  t.same(failed(report.rows), [])
  const signIn = report.rows.find((row) => row.check === 'the test account signs in')
  t.equal(signIn?.result, 'skip')
  t.match(signIn?.got, /requires a verified address .*name a verified account with --email and --password/)
  t.equal(report.rows.find((row) => row.check.startsWith('a wrong password is refused'))?.result, 'pass', 'the refusals still run')
})
