import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { startMetricsListener } from '../../../../server/edge/metrics/metrics-listener.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { GOOD_PASSWORD, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { OIDC_DOMAIN, startSsoStack } from '../../../fixtures/sso/sso-service.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'

/*
 * Real sign-ins of each kind through the real edge in front of the
 * reference service, then a scrape of the edge's METRICS_PORT listener:
 * the counts match what happened, and nothing a visitor sent or received
 * (an email, a password, a token, a code) is in the scrape.
 */

const NO_CONTEXT = { insecure_allowed_orgs: [], resource_type: null, cluster_name: null }

/** The sum of the samples of `name` whose labels include `labels`. */
function sample (text: string, name: string, labels: Record<string, string>): number {
  let total = 0
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) total += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return total
}

t.test('password, refused password, second factor, Google and passkey sign-ins are counted as they happened', async (t) => {
  const google = await startGoogleStandIn(t)
  const reference = await startReference(t, {
    env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl },
    edgeEnv: { METRICS_PORT: '0' }
  })
  const { base, edge } = reference
  const listener = await startMetricsListener({ metrics: edge.metrics!, port: 0, host: '127.0.0.1' })
  t.teardown(() => listener.close())
  const secrets: string[] = []

  // Password: a sign-in and a refusal.
  await registerAccount(base, 'ann.metrics@example.test')
  const ann = await loginTokens(base, 'ann.metrics@example.test', GOOD_PASSWORD, NO_CONTEXT)
  secrets.push(ann.auth, ann.refresh)
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'ann.metrics@example.test', password: 'not-the-password-9', ...NO_CONTEXT })).status, 401)

  // The second factor: enrolled, then a login that asks for it, a wrong code, and a recovery code.
  await registerAccount(base, 'sif.metrics@example.test')
  // Enrolled in the browser that signed in: the sign-in is its fresh proof.
  const sifsBrowser = new ServiceBrowser(base)
  const sifSignIn = await sifsBrowser.signIn('sif.metrics@example.test', GOOD_PASSWORD, NO_CONTEXT)
  const sif = { auth: String(sifSignIn.body.auth), refresh: String(sifSignIn.body.refresh) }
  const bearer = { authorization: `Bearer ${sif.auth}` }
  const enrolment = await sifsBrowser.post('second-factor/enrol/start', {}, bearer)
  const secret = String(enrolment.body.secret)
  const code = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate()
  const confirmed = await sifsBrowser.post('second-factor/enrol/confirm', { code }, bearer)
  t.equal(confirmed.status, 200)
  const [recoveryCode] = confirmed.body.recovery_codes as string[]
  const due = await postJson(base, '/accounts/v2/login', { email: 'sif.metrics@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT })
  t.equal(due.body.second_factor, 'code')
  const challenge = String(due.body.challenge)
  t.equal((await postJson(base, '/accounts/second-factor/verify', { challenge, code: code === '000000' ? '111111' : '000000', remember_browser: false })).status, 401)
  const recovered = await postJson(base, '/accounts/second-factor/verify', { challenge, recovery_code: recoveryCode, remember_browser: false })
  t.equal(recovered.status, 200)
  secrets.push(sif.auth, sif.refresh, secret, recoveryCode!, challenge, String(recovered.body.auth))

  // Google.
  const idToken = await google.credential({ email: 'gia.metrics@example.test', sub: 'g-metrics' })
  t.equal((await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, { authorization: `Bearer ${idToken}` })).status, 200)
  const signInToken = await google.credential({ email: 'gia.metrics@example.test', sub: 'g-metrics' })
  const gia = await postJson(base, '/accounts/v2/auth/login', { email: 'gia.metrics@example.test', login_method: 'GOOGLE', ...NO_CONTEXT }, { authorization: `Bearer ${signInToken}` })
  t.equal(gia.status, 200)
  t.equal((await postJson(base, '/accounts/v2/auth/login', { email: 'gia.metrics@example.test', login_method: 'GOOGLE', ...NO_CONTEXT }, { authorization: 'Bearer not.a.token' })).status, 401)
  secrets.push(idToken, signInToken, String(gia.body.auth))

  // Passkeys: the offer registers one, then the autofill menu and the button sign in with it.
  await registerAccount(base, 'pia.metrics@example.test')
  const browser = new PasskeyBrowser(base)
  const piaSignIn = await browser.signIn('pia.metrics@example.test', GOOD_PASSWORD, NO_CONTEXT)
  const pia = { auth: String(piaSignIn.body.auth), refresh: String(piaSignIn.body.refresh) }
  const authenticator = new SoftwareAuthenticator(TEST_PUBLIC_URL)
  const credential = authenticator.create(await browser.registerOptions(pia.auth, false))
  t.equal((await browser.post('passkeys/register', { credential, conditional: false }, { authorization: `Bearer ${pia.auth}` })).status, 200)
  for (const mediation of ['conditional', 'button']) {
    const signedIn = await browser.post('passkeys/login', { credential: authenticator.get(await browser.loginOptions()), ...NO_CONTEXT, mediation })
    t.equal(signedIn.status, 200, `the reference service accepts mediation: ${mediation}`)
  }
  const unknown = await browser.post('passkeys/login', {
    credential: authenticator.get(await browser.loginOptions(), { credentialId: 'bm90LWEtcmVhbC1jcmVkZW50aWFs' }), ...NO_CONTEXT, mediation: 'conditional'
  })
  t.equal(unknown.status, 401)
  secrets.push(pia.auth)

  const scrape = await fetch(`http://127.0.0.1:${listener.port}/metrics`)
  const text = await scrape.text()
  const signIns = (method: string, outcome: string): number => sample(text, 'threshold_sign_ins_total', { method, outcome })
  t.equal(signIns('password', 'success'), 3, 'ann, sif before the enrolment, and pia')
  t.equal(signIns('password', 'refused'), 1)
  t.equal(signIns('password', 'second_factor_required'), 1)
  t.equal(signIns('second_factor', 'refused'), 1, 'the wrong code')
  t.equal(signIns('recovery_code', 'success'), 1)
  t.equal(signIns('google', 'success'), 1)
  t.equal(signIns('google', 'refused'), 1, 'the token that is none')
  t.equal(signIns('passkey_autofill', 'success'), 1)
  t.equal(signIns('passkey_button', 'success'), 1)
  t.equal(signIns('passkey_autofill', 'refused'), 1, 'the unknown passkey')
  t.equal(sample(text, 'threshold_passkey_registrations_total', { kind: 'offer', outcome: 'success' }), 1)
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'accounts/v2/login', method: 'POST', status: '401' }), 1)
  t.equal(sample(text, 'threshold_upstream_failures_total', {}), 0, 'no backend failed')
  for (const value of ['metrics@example.test', 'ann.metrics', GOOD_PASSWORD, 'not-the-password-9', code, ...secrets]) {
    t.notOk(text.includes(value), `${value.slice(0, 12)}… is nowhere in the scrape`)
  }
})

t.test('an SSO completion is counted as sso: the sign-in, then the same id refused', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t, { edgeEnv: { METRICS_PORT: '0' } })
  stack.oidc.users.set('ann', { email: `ann@${OIDC_DOMAIN}`, email_verified: true })
  const browser = new TestBrowser()
  const landing = await stack.oidcRoundTrip(browser, 'ann', { redirect: null, ...NO_CONTEXT })
  const completed = await stack.completeLogin(browser, landing)
  t.equal(completed.status, 200)
  t.equal((await stack.completeLogin(browser, landing)).status, 401)
  const text = await stack.edge.metrics!.text()
  t.equal(sample(text, 'threshold_sign_ins_total', { method: 'sso', outcome: 'success' }), 1)
  t.equal(sample(text, 'threshold_sign_ins_total', { method: 'sso', outcome: 'refused' }), 1)
  for (const value of [OIDC_DOMAIN, landing.params.get('id')!, String(completed.body.auth)]) {
    t.notOk(text.includes(value), `${value.slice(0, 12)}… is nowhere in the scrape`)
  }
})
