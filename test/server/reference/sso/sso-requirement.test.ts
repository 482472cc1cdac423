import t from 'tap'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'
import { codeEmailsTo } from '../../../fixtures/email-codes/reference-email-codes.js'
import { postJson, type JsonAnswer } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD, logCollector, startReference, temporaryDataDir } from '../../../fixtures/servers/reference.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/*
 * A connection with `"required": true` (docs/sso.md, "Found by the address"):
 * every way in to its domain's addresses but single sign-on (and passkeys,
 * made after signing in) is refused with one 403, the same whether the
 * address has an account, before any password is hashed or account read.
 * Single sign-on itself for such a domain is tested with a real provider in
 * test/server/reference/sso/sso-required-journey.test.ts.
 */

const REFUSAL = { error: 'Your organization signs in with single sign-on. Continue with single sign-on.', sso_required: true }
const CONNECTIONS = JSON.stringify([
  { domain: 'corp.example', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'a-secret', required: true },
  { domain: 'open.example', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'a-secret' }
])

const refusal = (answer: JsonAnswer): [number, unknown] => [answer.status, answer.body]

t.test('a required connection', async (t) => {
  const google = await startGoogleStandIn(t)
  const googleEnv = { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl }
  // The accounts are made before the operator requires single sign-on for their domain.
  const dataDir = temporaryDataDir(t)
  const before = await startReference(t, { dataDir, env: googleEnv })
  await registerAccount(before.base, 'has@corp.example')
  await registerAccount(before.base, 'other@open.example')
  const tied = await postJson(before.base, '/accounts/auth/register', { register_method: 'GOOGLE' },
    { authorization: `Bearer ${await google.credential({ email: 'gil@gmail.example', sub: 'gil-google' })}` })
  t.equal(tied.status, 200)
  await before.close()
  // The Google account tied above moves to the company's domain, as an address change would.
  const logs = logCollector()
  const { base, services } = await startReference(t, { dataDir, env: { ...googleEnv, SSO_CONNECTIONS: CONNECTIONS }, logStream: logs.stream })
  const gil = await services.store.findAccountByEmail('gil@gmail.example')
  await services.store.changeAccountEmail(gil!.id, 'gil@corp.example', Date.now())
  const hashes = async (): Promise<string> => (await services.metrics.text()).split('\n')
    .filter((line) => line.startsWith('threshold_reference_password_hash_duration_seconds_count')).join('\n')

  t.test('attack: a password login is refused alike for an account of the domain (right password or wrong) and an address without one, and no password is checked', async (t) => {
    const hashed = await hashes()
    t.same(refusal(await postLogin(base, 'has@corp.example', GOOD_PASSWORD)), [403, REFUSAL])
    t.same(refusal(await postLogin(base, 'has@corp.example', 'a wrong password')), [403, REFUSAL])
    t.same(refusal(await postLogin(base, 'nobody@corp.example', GOOD_PASSWORD)), [403, REFUSAL])
    t.same(refusal(await postLogin(base, 'HAS@Corp.Example', GOOD_PASSWORD)), [403, REFUSAL], 'in any case')
    t.same(refusal(await postLogin(base, 'has@ｃｏｒｐ.example', GOOD_PASSWORD)), [403, REFUSAL], 'in full-width letters (the same account)')
    t.equal(await hashes(), hashed, 'no password was hashed or checked')
    await postLogin(base, 'other@open.example', 'a wrong password')
    t.not(await hashes(), hashed, 'where the instrument sees a check of another domain\'s password')
  })

  t.test('attack: registering a password account in the domain is refused alike for a taken address and a new one, before any hashing', async (t) => {
    const hashed = await hashes()
    const body = (email: string) => ({ email, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
    t.same(refusal(await postJson(base, '/accounts/register', body('has@corp.example'))), [403, REFUSAL])
    t.same(refusal(await postJson(base, '/accounts/register', body('new@corp.example'))), [403, REFUSAL])
    t.equal(await hashes(), hashed)
    t.equal(await services.store.findAccountByEmail('new@corp.example'), null, 'no account is made')
  })

  t.test('no sign-in code is sent to the domain, and none signs in, whatever the account', async (t) => {
    for (const email of ['has@corp.example', 'nobody@corp.example']) {
      t.same(refusal(await postJson(base, '/accounts/email-code/send', { email })), [403, REFUSAL], email)
      t.same(refusal(await postJson(base, '/accounts/email-code/login', { email, code: 'ABCD-EFGH' })), [403, REFUSAL], email)
      t.same(await codeEmailsTo(dataDir, email), [], 'no code was emailed')
    }
  })

  t.test('Google signs in no address of the domain, nor an account of it tied to Google before', async (t) => {
    const bearer = async (email: string, sub: string) => ({ authorization: `Bearer ${await google.credential({ email, sub })}` })
    t.same(refusal(await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, await bearer('has@corp.example', 'has-google'))), [403, REFUSAL])
    t.same(refusal(await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, await bearer('new@corp.example', 'new-google'))), [403, REFUSAL])
    t.same(refusal(await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, await bearer('gil@gmail.example', 'gil-google'))), [403, REFUSAL],
      'the account tied to this Google identity has an address of the domain')
    t.equal(await services.store.findAccountByEmail('new@corp.example'), null)
  })

  t.test('the refusal is in the visitor\'s language', async (t) => {
    const answer = await postJson(base, '/accounts/v2/login', { email: 'has@corp.example', password: GOOD_PASSWORD }, { 'accept-language': 'de' })
    t.equal(answer.status, 403)
    t.same(answer.body, { error: 'Ihre Organisation meldet sich mit SSO an. Fahren Sie mit der SSO-Anmeldung fort.', sso_required: true })
  })

  t.test('another domain, with a connection that is not required, keeps every way in', async (t) => {
    t.equal((await postLogin(base, 'other@open.example', GOOD_PASSWORD)).status, 200)
    t.equal((await postJson(base, '/accounts/register', { email: 'new@open.example', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })).status, 200)
    t.equal((await postJson(base, '/accounts/email-code/send', { email: 'other@open.example' })).status, 200)
  })

  t.test('a malformed address is still refused as malformed, not as required', async (t) => {
    t.equal((await postLogin(base, 'has@corp.example.', GOOD_PASSWORD)).status, 400)
    t.equal((await postJson(base, '/accounts/email-code/send', { email: 'corp.example' })).status, 400)
  })

  t.test('the refusals are logged with the address pseudonymised', async (t) => {
    const refused = logs.lines.filter((line) => line.audit === 'sso.required-refused')
    t.ok(refused.length > 0)
    t.match(refused[0], { emailDomain: 'corp.example', emailPseudonym: /^[0-9a-f]{16}$/, method: 'password' })
    t.notMatch(logs.text(), 'has@corp.example')
    t.notMatch(logs.text(), 'nobody@corp.example')
  })
})
