import '../../fixtures/page/dom.js'
import t, { type Test } from 'tap'
import { googleLogin } from '../../../client/google/google-calls.js'
import { login } from '../../../client/sign-in/login-calls.js'
import { confirmEnrolment, startEnrolment, verifySecondFactor } from '../../../client/second-factor/second-factor-calls.js'
import { ACCOUNTS_FAILURE_MESSAGES } from '../../../server/edge/upstream/accounts-proxy.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { jsonAnswer, localAccountsAnswer, startUpstream } from '../../fixtures/servers/edge.js'
import { startBackend } from '../../fixtures/page/page.js'
import { SECOND_FACTOR_TEST_ROUTES, TEST_OTPAUTH_URI, TEST_RECOVERY_CODES, TEST_SECRET } from '../../fixtures/second-factor/second-factor.js'

const routes = { accountsRoutes: SECOND_FACTOR_TEST_ROUTES }
const context = { insecure_allowed_orgs: [], resource_type: null, cluster_name: null }

async function answering (t: Test, status: number, body: unknown) {
  const backend = await startBackend(t, jsonAnswer(status, body), routes)
  setPageUrl(`${backend.base}/`)
  return backend
}

t.test('each second-factor call posts its exact JSON body, with the bearer only for a signed-in enrolment', async (t) => {
  const { upstream } = await answering(t, 200, { success: 'ok' })
  const calls: Array<[string, () => Promise<unknown>, string, unknown, string | undefined]> = [
    ['verify, code', () => verifySecondFactor({ challenge: 'ch-1', code: '123456', remember_browser: true }), '/second-factor/verify',
      { challenge: 'ch-1', code: '123456', remember_browser: true }, undefined],
    ['verify, recovery code', () => verifySecondFactor({ challenge: 'ch-1', recovery_code: 'abcd-efgh', remember_browser: false }), '/second-factor/verify',
      { challenge: 'ch-1', recovery_code: 'abcd-efgh', remember_browser: false }, undefined],
    ['start, challenge', () => startEnrolment({ kind: 'challenge', challenge: 'ch-2' }), '/second-factor/enrol/start', { challenge: 'ch-2' }, undefined],
    ['start, bearer', () => startEnrolment({ kind: 'bearer', auth: 'eyJ.auth' }), '/second-factor/enrol/start', {}, 'Bearer eyJ.auth'],
    ['confirm, challenge', () => confirmEnrolment({ kind: 'challenge', challenge: 'ch-2' }, '654321', true), '/second-factor/enrol/confirm',
      { challenge: 'ch-2', code: '654321', remember_browser: true }, undefined],
    ['confirm, bearer', () => confirmEnrolment({ kind: 'bearer', auth: 'eyJ.auth' }, '654321', true), '/second-factor/enrol/confirm',
      { code: '654321' }, 'Bearer eyJ.auth']
  ]
  for (const [name, call, path, body, authorization] of calls) {
    const before = upstream.requests.length
    await call()
    t.equal(upstream.requests.length, before + 1, `${name}: one request`)
    const seen = upstream.requests.at(-1)!
    t.equal(seen.url, path, `${name}: path`)
    t.same(JSON.parse(seen.body.toString('utf8')), body, `${name}: exact body`)
    // The edge forwards Authorization only on the paths it lists (server/edge/upstream/accounts-proxy.ts), the enrolment's two among them.
    t.equal(seen.headers.authorization, authorization, `${name}: Authorization`)
  }
})

t.test('a local-network login\'s calls go to the listener that issued its challenge, without the page\'s cookies', async (t) => {
  const { upstream } = await answering(t, 200, { success: 'ok' })
  const local = await startUpstream(t, localAccountsAnswer(() => JSON.stringify({ auth: 'a', refresh: 'r' })))
  setPageUrl('http://127.0.0.1:8080/?local_accounts_host=127.0.0.1')
  document.cookie = 'secret=page-cookie; path=/'
  const localOrigin = new URL(local.url).origin
  t.same(await verifySecondFactor({ challenge: 'ch-1', code: '123456', remember_browser: false }, localOrigin), { kind: 'tokens', auth: 'a', refresh: 'r' })
  await startEnrolment({ kind: 'challenge', challenge: 'ch-2', localOrigin })
  await confirmEnrolment({ kind: 'challenge', challenge: 'ch-2', localOrigin }, '654321')
  const posts = local.requests.filter((request) => request.method === 'POST')
  t.same(posts.map((request) => request.url), ['/second-factor/verify', '/second-factor/enrol/start', '/second-factor/enrol/confirm'])
  t.same(posts.map((request) => request.headers.cookie), [undefined, undefined, undefined], 'no cookie of the page travels there')
  t.equal(upstream.requests.length, 0, 'nothing through the edge')
})

t.test('a login answers a second-factor challenge only without tokens, with a known step, a challenge and a lifetime', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['code', 200, { second_factor: 'code', challenge: 'ch-1', expires_in: 300 }, { kind: 'second-factor', step: 'code', challenge: 'ch-1', expiresIn: 300 }],
    ['enrol', 200, { second_factor: 'enrol', challenge: 'ch-2', expires_in: 300 }, { kind: 'second-factor', step: 'enrol', challenge: 'ch-2', expiresIn: 300 }],
    ['tokens', 200, { auth: 'a', refresh: 'r' }, { kind: 'tokens', auth: 'a', refresh: 'r' }],
    ['a challenge beside tokens', 200, { second_factor: 'code', challenge: 'ch-1', expires_in: 300, auth: 'a', refresh: 'r' }, { kind: 'failed' }],
    ['a challenge beside one token', 200, { second_factor: 'code', challenge: 'ch-1', expires_in: 300, auth: 'a' }, { kind: 'failed' }],
    ['a bare challenge beside tokens', 200, { challenge: 'ch-1', auth: 'a', refresh: 'r' }, { kind: 'failed' }],
    ['an unknown step', 200, { second_factor: 'sms', challenge: 'ch-1', expires_in: 300 }, { kind: 'failed' }],
    ['no challenge', 200, { second_factor: 'code', expires_in: 300 }, { kind: 'failed' }],
    ['an empty challenge', 200, { second_factor: 'code', challenge: '', expires_in: 300 }, { kind: 'failed' }],
    ['no lifetime', 200, { second_factor: 'code', challenge: 'ch-1' }, { kind: 'failed' }],
    ['a lifetime of 0', 200, { second_factor: 'code', challenge: 'ch-1', expires_in: 0 }, { kind: 'failed' }],
    ['a challenge on a 500', 500, { second_factor: 'code', challenge: 'ch-1', expires_in: 300 }, { kind: 'failed' }],
    ['a refusal', 401, { error: 'Wrong email or password.' }, { kind: 'error', message: 'Wrong email or password.' }]
  ]
  for (const [what, status, body, expected] of cases) {
    await answering(t, status, body)
    t.same(await login({ email: 'ada@example.test', password: 'pw', ...context }), expected, `password login: ${what}`)
    t.same(await googleLogin('eyJ.google', null, { email: 'ada@example.test', login_method: 'GOOGLE', ...context }), expected, `Google login: ${what}`)
  }
})

t.test('verify answers tokens or the refusal; a second challenge or half the tokens is unusable', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['tokens', 200, { auth: 'a', refresh: 'r' }, { kind: 'tokens', auth: 'a', refresh: 'r' }],
    ['a wrong code', 401, { error: 'That code is not right.' }, { kind: 'error', message: 'That code is not right.' }],
    ['throttled', 429, { error: 'Too many tries. Wait 8 seconds.' }, { kind: 'error', message: 'Too many tries. Wait 8 seconds.' }],
    ['another challenge', 200, { second_factor: 'code', challenge: 'ch-2', expires_in: 300 }, { kind: 'failed' }],
    ['the auth token alone (the refresh token is in the edge\'s cookie)', 200, { auth: 'a' }, { kind: 'tokens', auth: 'a', refresh: null }],
    ['half the tokens', 200, { refresh: 'r' }, { kind: 'failed' }],
    ['a refresh token that is no string', 200, { auth: 'a', refresh: 7 }, { kind: 'failed' }],
    // The edge answers in the backend's place, with its own text.
    ['not JSON', 200, 'tokens', { kind: 'error', message: ACCOUNTS_FAILURE_MESSAGES.unreadable }]
  ]
  for (const [what, status, body, expected] of cases) {
    await answering(t, status, body)
    t.same(await verifySecondFactor({ challenge: 'ch-1', code: '123456', remember_browser: false }), expected, what)
  }
})

t.test('an enrolment starts only with a base32 secret and an otpauth://totp/ URI that carries the same secret', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['secret', 200, { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI }, { kind: 'secret', secret: TEST_SECRET, otpauthUri: TEST_OTPAUTH_URI }],
    ['already enrolled', 409, { error: 'This account has a second factor already.' }, { kind: 'error', message: 'This account has a second factor already.' }],
    ['a URI with another secret', 200, { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI.replace(TEST_SECRET, 'GEZDGNBVGY3TQOJQ') }, { kind: 'failed' }],
    ['a HOTP URI', 200, { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI.replace('totp', 'hotp') }, { kind: 'failed' }],
    ['a web URL', 200, { secret: TEST_SECRET, otpauth_uri: `https://example.test/?secret=${TEST_SECRET}` }, { kind: 'failed' }],
    ['a secret that is not base32', 200, { secret: 'not base32!', otpauth_uri: TEST_OTPAUTH_URI }, { kind: 'failed' }],
    ['no URI', 200, { secret: TEST_SECRET }, { kind: 'failed' }]
  ]
  for (const [what, status, body, expected] of cases) {
    await answering(t, status, body)
    t.same(await startEnrolment({ kind: 'challenge', challenge: 'ch-1' }), expected, what)
  }
})

t.test('a confirmed enrolment answers the recovery codes, and during a login the tokens too', async (t) => {
  const login = { kind: 'challenge', challenge: 'ch-1' } as const
  const signedIn = { kind: 'bearer', auth: 'eyJ.auth' } as const
  await answering(t, 200, { recovery_codes: TEST_RECOVERY_CODES, auth: 'a', refresh: 'r' })
  t.same(await confirmEnrolment(login, '123456'), { kind: 'confirmed', recoveryCodes: TEST_RECOVERY_CODES, tokens: { kind: 'tokens', auth: 'a', refresh: 'r' } }, 'during a login')
  await answering(t, 200, { recovery_codes: TEST_RECOVERY_CODES })
  t.same(await confirmEnrolment(signedIn, '123456'), { kind: 'confirmed', recoveryCodes: TEST_RECOVERY_CODES, tokens: null }, 'signed in')
  t.same(await confirmEnrolment(login, '123456'), { kind: 'failed' }, 'during a login, codes without tokens are no sign-in')
  const bad: Array<[string, unknown]> = [
    ['no codes', { auth: 'a', refresh: 'r' }],
    ['an empty list', { recovery_codes: [], auth: 'a', refresh: 'r' }],
    ['a code that is not a string', { recovery_codes: [...TEST_RECOVERY_CODES.slice(1), 7], auth: 'a', refresh: 'r' }],
    ['an empty code', { recovery_codes: [...TEST_RECOVERY_CODES.slice(1), ''], auth: 'a', refresh: 'r' }]
  ]
  for (const [what, body] of bad) {
    await answering(t, 200, body)
    t.same(await confirmEnrolment(login, '123456'), { kind: 'failed' }, what)
  }
  await answering(t, 401, { error: 'That code is not right.' })
  t.same(await confirmEnrolment(signedIn, '123456'), { kind: 'error', message: 'That code is not right.' }, 'a wrong first code')
})
