import '../../fixtures/page/dom.js'
import t from 'tap'
import { googleLogin, googleRegister } from '../../../client/google/google-calls.js'
import { resetPasswordRequest, setPassword } from '../../../client/password-reset/password-reset-calls.js'
import { register, verifyEmailRequest } from '../../../client/registration/registration-calls.js'
import { localLogin, login } from '../../../client/sign-in/login-calls.js'
import { completeSsoLogin, completeSsoRegister, startSso } from '../../../client/sso/sso-calls.js'
import { BUSY_MESSAGE } from '../../../common/languages/page-texts.js'
import { ACCOUNTS_FAILURE_MESSAGES } from '../../../server/edge/upstream/accounts-proxy.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import type { ServerResponse } from 'node:http'
import { jsonAnswer, localAccountsAnswer, startUpstream, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { startBackend } from '../../fixtures/page/page.js'

/** The edge's answer when the backend answered something the page cannot read (server/edge/upstream/json-answers.ts). */
const UNREADABLE = ACCOUNTS_FAILURE_MESSAGES.unreadable

const context = { insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod' }

t.test('each call posts its exact JSON body, with its headers, to its path through the edge', async (t) => {
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { success: 'ok' }), { accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  setPageUrl(`${base}/`)
  const calls: Array<[string, () => Promise<unknown>, string, unknown, Record<string, string | undefined>]> = [
    ['login', () => login({ email: 'a@b.test', password: 'pw', ...context }), '/v2/login',
      { email: 'a@b.test', password: 'pw', insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod' }, {}],
    ['register', () => register({ first_name: 'Ada', last_name: '', email: 'a@b.test', password: 'pw1', confirm_password: 'pw2' }), '/register',
      { first_name: 'Ada', last_name: '', email: 'a@b.test', password: 'pw1', confirm_password: 'pw2' }, {}],
    ['reset', () => resetPasswordRequest({ email: 'a@b.test' }), '/resetPasswordRequest', { email: 'a@b.test' }, {}],
    ['google login', () => googleLogin('google.id.token', 'nonce-secret', { email: 'a@b.test', login_method: 'GOOGLE', ...context }), '/v2/auth/login',
      { email: 'a@b.test', login_method: 'GOOGLE', insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod', google_nonce_secret: 'nonce-secret' },
      { authorization: 'Bearer google.id.token' }],
    ['google login without a nonce secret', () => googleLogin('google.id.token', null, { email: 'a@b.test', login_method: 'GOOGLE', ...context }), '/v2/auth/login',
      { email: 'a@b.test', login_method: 'GOOGLE', insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod' },
      { authorization: 'Bearer google.id.token' }],
    ['google register', () => googleRegister('google.id.token', 'nonce-secret'), '/auth/register', { register_method: 'GOOGLE', google_nonce_secret: 'nonce-secret' },
      { authorization: 'Bearer google.id.token' }],
    ['sso start', () => startSso({ email: 'a@b.test', source: 'register', redirect: '/app', ...context }), '/auth/login/sso',
      { email: 'a@b.test', source: 'register', redirect: '/app', insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod' }, {}],
    ['sso login', () => completeSsoLogin({ email: 'a@b.test', login_method: 'OIDC', id: 'one-time', ...context }), '/v2/auth/login',
      { email: 'a@b.test', login_method: 'OIDC', id: 'one-time', insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod' }, {}],
    ['sso register', () => completeSsoRegister({ register_method: 'SAML', id: 'one-time' }), '/auth/register', { register_method: 'SAML', id: 'one-time' }, {}],
    ['set password', () => setPassword({ token: 'tok', password: 'pw', confirm_password: 'pw' }), '/resetPassword', { token: 'tok', password: 'pw', confirm_password: 'pw' }, {}],
    ['new verification link', () => verifyEmailRequest({ email: 'a@b.test' }), '/verifyEmailRequest', { email: 'a@b.test' }, {}]
  ]
  for (const [name, call, path, body, headers] of calls) {
    const before = upstream.requests.length
    await call()
    t.equal(upstream.requests.length, before + 1, `${name}: one request`)
    const seen = upstream.requests.at(-1)!
    t.equal(seen.method, 'POST', `${name}: POST`)
    t.equal(seen.url, path, `${name}: path`)
    t.match(seen.headers['content-type'], /^application\/json/, `${name}: JSON`)
    t.same(JSON.parse(seen.body.toString('utf8')), body, `${name}: exact body`)
    for (const [header, value] of Object.entries(headers)) t.equal(seen.headers[header], value, `${name}: ${header}`)
    if (headers.authorization === undefined) t.equal(seen.headers.authorization, undefined, `${name}: no Authorization header`)
  }
})

t.test('the SSO calls carry the page\'s SSO state cookie through the edge, and none of the parent domain\'s others', async (t) => {
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { sso_url: 'https://idp.test/' }))
  setPageUrl(`${base}/`)
  document.cookie = 'sso_state=binding; path=/'
  document.cookie = 'product_session=secret; path=/'
  await startSso({ email: 'a@b.test', source: 'login', redirect: null, ...context })
  t.equal(upstream.requests.at(-1)!.headers.cookie, 'sso_state=binding')
})

t.test('answers become the union the page switches on', async (t) => {
  const cases: Array<[string, (request: RecordedRequest, response: ServerResponse) => void, unknown]> = [
    ['tokens', jsonAnswer(200, { auth: 'a.b.c', refresh: 'r' }), { kind: 'tokens', auth: 'a.b.c', refresh: 'r' }],
    ['tokens with the enrolled hint', jsonAnswer(200, { auth: 'a.b.c', refresh: 'r', second_factor_enrolled: true }), { kind: 'tokens', auth: 'a.b.c', refresh: 'r', secondFactorEnrolled: true }],
    ['a hint that is not true is no hint', jsonAnswer(200, { auth: 'a.b.c', refresh: 'r', second_factor_enrolled: 'yes' }), { kind: 'tokens', auth: 'a.b.c', refresh: 'r' }],
    ['an error with 401', jsonAnswer(401, { error: 'Invalid email or password.' }), { kind: 'error', message: 'Invalid email or password.' }],
    ['an error even with 200', jsonAnswer(200, { error: 'Nope.' }), { kind: 'error', message: 'Nope.' }],
    // Through the edge the refresh token is in its HttpOnly cookie, never in the body (test/server/edge/sessions/).
    ['the auth token alone: the refresh token is the edge\'s', jsonAnswer(200, { auth: 'a.b.c' }), { kind: 'tokens', auth: 'a.b.c', refresh: null }],
    ['200 without an auth token', jsonAnswer(200, { refresh: 'r' }), { kind: 'failed' }],
    ['200 with an empty refresh token', jsonAnswer(200, { auth: 'a.b.c', refresh: '' }), { kind: 'failed' }],
    ['500 without text', jsonAnswer(500, {}), { kind: 'failed' }],
    ['503 with the service\'s text', jsonAnswer(503, { error: 'Busy, try again.' }), { kind: 'error', message: 'Busy, try again.' }],
    ['503 without text (a service shedding load): busy, the page says it in its language', jsonAnswer(503, {}), { kind: 'error', message: BUSY_MESSAGE, busy: true }],
    ['a JSON array (the edge answers in the backend\'s place)', jsonAnswer(200, []), { kind: 'error', message: UNREADABLE }],
    ['JSON that is not an object (the edge answers in the backend\'s place)', jsonAnswer(200, null), { kind: 'error', message: UNREADABLE }],
    ['not JSON (the edge answers in the backend\'s place)', (_request, response) => { response.writeHead(502, { 'content-type': 'text/html' }); response.end('<h1>Bad gateway</h1>') },
      { kind: 'error', message: 'The accounts service could not be reached. Please try again shortly.' }],
    ['tokens on a 500', jsonAnswer(500, { auth: 'a', refresh: 'r' }), { kind: 'failed' }],
    ['an error with markup and control characters', jsonAnswer(400, { error: '<b>x</b>\u0000\u202e y' }), { kind: 'error', message: '<b>x</b> y' }]
  ]
  for (const [what, answer, expected] of cases) {
    const { base } = await startBackend(t, answer)
    setPageUrl(`${base}/`)
    t.same(await login({ email: 'a@b.test', password: 'pw', ...context }), expected, what)
  }
})

t.test('a login refused with 403 and the reason email_not_verified is an unverified address; no other refusal is', async (t) => {
  const text = 'Verify your email address before you log in.'
  const cases: Array<[string, number, unknown, unknown]> = [
    ['403 with the reason', 403, { error: text, reason: 'email_not_verified' }, { kind: 'email-not-verified', message: text }],
    ['the text made plain as any error', 403, { error: `<b>${text}</b>\u202e`, reason: 'email_not_verified' }, { kind: 'email-not-verified', message: `<b>${text}</b>` }],
    ['403 without a reason', 403, { error: 'Your account is not in this organisation.' }, { kind: 'error', message: 'Your account is not in this organisation.' }],
    ['403 with another reason', 403, { error: 'Locked.', reason: 'account_locked' }, { kind: 'error', message: 'Locked.' }],
    ['the reason in another case', 403, { error: 'Nope.', reason: 'EMAIL_NOT_VERIFIED' }, { kind: 'error', message: 'Nope.' }],
    ['the reason with 401', 401, { error: 'Invalid email or password.', reason: 'email_not_verified' }, { kind: 'error', message: 'Invalid email or password.' }],
    ['the reason with 200', 200, { error: 'Odd.', reason: 'email_not_verified' }, { kind: 'error', message: 'Odd.' }],
    ['the reason without a text to show', 403, { reason: 'email_not_verified' }, { kind: 'failed' }]
  ]
  for (const [what, status, body, expected] of cases) {
    const { base } = await startBackend(t, jsonAnswer(status, body))
    setPageUrl(`${base}/`)
    t.same(await login({ email: 'a@b.test', password: 'pw', ...context }), expected, what)
  }
  const { base } = await startBackend(t, jsonAnswer(403, { error: text, reason: 'email_not_verified' }))
  setPageUrl(`${base}/`)
  t.same(await googleLogin('google.id.token', null, { email: 'a@b.test', login_method: 'GOOGLE', ...context }), { kind: 'error', message: text },
    'Google login only shows the text: Google vouches for its addresses')
})

t.test('the request for a new verification link answers with the success text, or the refusal', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['sent', 200, { success: 'We have sent a new link to a@b.test.' }, { kind: 'success', message: 'We have sent a new link to a@b.test.' }],
    ['sent, without a text', 200, {}, { kind: 'success', message: '' }],
    ['rate limited', 429, { error: 'Too many requests. Try again in a few minutes.' }, { kind: 'error', message: 'Too many requests. Try again in a few minutes.' }],
    ['refused', 400, { error: 'Enter a valid email address.' }, { kind: 'error', message: 'Enter a valid email address.' }],
    ['a failure without a text', 500, {}, { kind: 'failed' }]
  ]
  for (const [what, status, body, expected] of cases) {
    const { base } = await startBackend(t, jsonAnswer(status, body), { accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
    setPageUrl(`${base}/`)
    t.same(await verifyEmailRequest({ email: 'a@b.test' }), expected, what)
  }
})

t.test('a network failure is a failed call, not an exception', async (t) => {
  setPageUrl('http://127.0.0.1:9/')
  t.same(await login({ email: 'a@b.test', password: 'pw', ...context }), { kind: 'failed' })
  t.same(await register({ first_name: '', last_name: '', email: '', password: '', confirm_password: '' }), { kind: 'failed' })
})

t.test('registration-type answers carry the success text', async (t) => {
  const { base } = await startBackend(t, jsonAnswer(200, { success: 'Check your inbox.' }))
  setPageUrl(`${base}/`)
  t.same(await register({ first_name: '', last_name: '', email: 'a@b.test', password: 'x', confirm_password: 'x' }), { kind: 'success', message: 'Check your inbox.' })
  t.same(await resetPasswordRequest({ email: 'a@b.test' }), { kind: 'success', message: 'Check your inbox.' })
})

t.test('sso_url is followed only when it is an http(s) URL', async (t) => {
  const answers: Array<[unknown, unknown]> = [
    ['https://idp.example.test/authorize?x=1', { kind: 'redirect', url: 'https://idp.example.test/authorize?x=1' }],
    ['http://127.0.0.1:5556/auth', { kind: 'redirect', url: 'http://127.0.0.1:5556/auth' }],
    ['javascript:alert(1)', { kind: 'failed' }],
    ['data:text/html,hi', { kind: 'failed' }],
    ['/relative/path', { kind: 'failed' }],
    ['https://user:pw@idp.test/', { kind: 'failed' }],
    [42, { kind: 'failed' }]
  ]
  for (const [ssoUrl, expected] of answers) {
    const { base } = await startBackend(t, jsonAnswer(200, { sso_url: ssoUrl }))
    setPageUrl(`${base}/`)
    t.same(await startSso({ email: 'a@b.test', source: 'login', redirect: null, ...context }), expected, String(ssoUrl))
  }
})

t.test('local-network login posts straight to the local accounts server, without cookies', async (t) => {
  const local = await startUpstream(t, localAccountsAnswer(() => JSON.stringify({ auth: 'local.jwt', refresh: 'local-refresh' })))
  setPageUrl('http://127.0.0.1:8080/?local_accounts_host=127.0.0.1')
  document.cookie = 'secret=page-cookie; path=/'
  const answer = await localLogin(`${local.url}/authenticate`, { email: 'a@b.test', password: 'pw', ...context })
  t.same(answer, { kind: 'tokens', auth: 'local.jwt', refresh: 'local-refresh' })
  const post = local.requests.find((request) => request.method === 'POST')!
  t.equal(post.url, '/authenticate')
  t.same(JSON.parse(post.body.toString()), { email: 'a@b.test', password: 'pw', ...context })
  t.equal(post.headers.cookie, undefined, 'no cookie of the page travels to the local server')
})

t.test('straight from a local accounts server, with no edge in between, JSON that is not an object is an answer the page cannot use', async (t) => {
  let body = '[]'
  const local = await startUpstream(t, localAccountsAnswer(() => body))
  setPageUrl('http://127.0.0.1:8080/?local_accounts_host=127.0.0.1')
  for (const answer of ['[]', 'null', '"text"']) {
    body = answer
    t.same(await localLogin(`${local.url}/authenticate`, { email: 'a@b.test', password: 'pw', ...context }), { kind: 'failed' }, answer)
  }
})

t.test('a call sends only the page\'s origin as Referer, never its address, which can hold a reset token or an email', async (t) => {
  // Straight to a server (local-network mode) where no edge drops the header; on the
  // page's own origin, where a browser's default policy would send the whole address.
  const local = await startUpstream(t, localAccountsAnswer(() => JSON.stringify({ auth: 'a', refresh: 'r' })))
  setPageUrl(`${local.url}/?view=setPassword&token=tok_secret_1234567890&email=ada%40example.test&local_accounts_host=127.0.0.1`)
  await localLogin(`${local.url}/authenticate`, { email: 'a@b.test', password: 'pw', ...context })
  const post = local.requests.find((request) => request.method === 'POST')!
  t.equal(post.headers.referer, `${local.url}/`, 'the origin only')
  t.notMatch(JSON.stringify(post.headers), /tok_secret|ada%40example/, 'no part of the address in any header')
})

t.test('through the edge a call\'s Referer does not reach the accounts service at all', async (t) => {
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { success: 'ok' }), { accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  setPageUrl(`${base}/?view=setPassword&token=tok_secret_1234567890&email=ada%40example.test`)
  await setPassword({ token: 'tok_secret_1234567890', password: 'pw', confirm_password: 'pw' })
  await login({ email: 'a@b.test', password: 'pw', ...context })
  for (const request of upstream.requests) {
    t.equal(request.headers.referer, undefined, `${request.url}: no Referer`)
    t.notMatch(JSON.stringify(request.headers), /tok_secret|ada%40example/, `${request.url}: no part of the address in any header`)
  }
})
