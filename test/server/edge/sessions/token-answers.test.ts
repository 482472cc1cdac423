import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { ACCOUNTS_FAILURE_MESSAGES } from '../../../../server/edge/upstream/accounts-proxy.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { ACCOUNT_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, withRoutes } from '../../../../server/shared/accounts-routes.js'
import { buildEdge, jsonAnswer, startUpstream, type RecordedRequest, startEdgeWithUpstream } from '../../../fixtures/servers/edge.js'

const ROUTES = withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, ACCOUNT_ROUTES)
const ENV = { SECOND_FACTOR: 'true', PASSKEYS: 'true' }

/** A call from the page's own scripts, as a browser makes it: it says where it comes from. */
const PAGE_CALL = { host: 'signin.example.com', 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', origin: 'https://signin.example.com' }

const TOKENS = { auth: 'eyJ.auth.token', refresh: 'refresh-token-1' }

/** Every answer that carries a token pair, as the accounts API gives it, by the call that gives it. */
const TOKEN_ANSWERS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'v2/login': { ...TOKENS, password_breached: true },
  'v2/auth/login': TOKENS,
  'passkeys/login': { ...TOKENS, email: 'ada@example.test', user_id: 'dXNlcg', credential_ids: ['cred-1'] },
  'second-factor/verify': TOKENS,
  'second-factor/enrol/confirm': { ...TOKENS, recovery_codes: ['rc0a-b0cd'] },
  'token/refresh': TOKENS
}

function setCookies (response: { headers: Record<string, unknown> }): string[] {
  const value = response.headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value as string[] : [value as string]
}

/** One Set-Cookie value as its name, value and attributes. */
function parsed (line: string): { name: string, value: string, attributes: string[] } {
  const [pair, ...attributes] = line.split('; ')
  const separator = pair!.indexOf('=')
  return { name: pair!.slice(0, separator), value: pair!.slice(separator + 1), attributes }
}

function cookieNamed (response: { headers: Record<string, unknown> }, name: string) {
  return setCookies(response).map(parsed).find((cookie) => cookie.name === name)
}

async function edgeAnswering (t: Parameters<typeof buildEdge>[0], answer: (request: RecordedRequest) => [number, unknown], env: Record<string, string> = {}) {
  return await startEdgeWithUpstream(t, (request, response) => {
    const [status, body] = answer(request)
    jsonAnswer(status, body)(request, response)
  }, { accountsRoutes: ROUTES, env: { ...ENV, ...env } })
}

function call (app: FastifyInstance, path: string, headers: Record<string, string> = PAGE_CALL, payload = '{}') {
  return app.inject({ method: 'POST', url: `/accounts/${path}`, headers, payload })
}

t.test('every answer carrying tokens sets the refresh cookie HttpOnly, and the page\'s scripts get the answer without it', async (t) => {
  const { app } = await edgeAnswering(t, (request) => [200, TOKEN_ANSWERS[request.url.slice(1)]])
  for (const [path, answer] of Object.entries(TOKEN_ANSWERS)) {
    const before = Date.now()
    const response = await call(app, path)
    t.equal(response.statusCode, 200, `${path}: passed on`)
    const { refresh: _kept, ...rest } = answer
    t.same(response.json(), rest, `${path}: the answer the page reads, every field but refresh`)
    t.notOk(response.body.includes(TOKENS.refresh), `${path}: the refresh token is nowhere in the body`)
    t.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body), `${path}: its own length`)
    const refresh = cookieNamed(response, 'refresh')
    t.equal(refresh?.value, TOKENS.refresh, `${path}: the refresh cookie`)
    t.same(refresh?.attributes.filter((attribute) => !attribute.startsWith('Expires=')), ['Path=/', 'Domain=example.com', 'Secure', 'HttpOnly', 'SameSite=Lax'],
      `${path}: HttpOnly, Secure, SameSite=Lax, on the whole site, on the cookie domain the edge derives`)
    const expires = Date.parse(refresh!.attributes.find((attribute) => attribute.startsWith('Expires='))!.slice('Expires='.length))
    const days = (expires - before) / 86_400_000
    t.ok(days > 13.99 && days <= 14.01, `${path}: 14 days (${days.toFixed(3)})`)
    t.equal(cookieNamed(response, 'auth'), undefined, `${path}: auth is the page's to write, readable`)
  }
})

t.test('COOKIE_DOMAIN names the cookies\' domain; a host without a parent domain gets host-only cookies', async (t) => {
  const { app } = await edgeAnswering(t, () => [200, TOKENS], { COOKIE_DOMAIN: 'accounts.example.org' })
  t.ok(cookieNamed(await call(app, 'v2/login'), 'refresh')?.attributes.includes('Domain=accounts.example.org'))
  const plain = await edgeAnswering(t, () => [200, TOKENS])
  const local = await call(plain.app, 'v2/login', { ...PAGE_CALL, host: 'localhost:8080', origin: 'http://localhost:8080' })
  t.notOk(cookieNamed(local, 'refresh')?.attributes.some((attribute) => attribute.startsWith('Domain=')), 'localhost: host-only')
})

t.test('with AUTH_COOKIE_HTTPONLY the edge sets the auth cookie too, HttpOnly, and the page still gets auth for its calls', async (t) => {
  const { app } = await edgeAnswering(t, () => [200, TOKENS], { AUTH_COOKIE_HTTPONLY: 'true' })
  const response = await call(app, 'v2/login')
  t.same(response.json(), { auth: TOKENS.auth }, 'the bearer token for the passkey upgrade and the second-factor offer')
  const auth = cookieNamed(response, 'auth')
  t.equal(auth?.value, TOKENS.auth)
  t.ok(auth?.attributes.includes('HttpOnly'), 'auth: HttpOnly')
  t.ok(cookieNamed(response, 'refresh')?.attributes.includes('HttpOnly'), 'refresh: HttpOnly')
  const config = /<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec((await app.inject({ url: '/', headers: { host: 'signin.example.com' } })).body)
  t.equal((JSON.parse(config![1]!) as { authCookieHttpOnly?: boolean }).authCookieHttpOnly, true, 'the page is told not to write it')
})

t.test('a server or a tool, which runs no page script, gets the pair as the accounts API gives it (and the cookies)', async (t) => {
  const { app } = await edgeAnswering(t, () => [200, TOKENS])
  const response = await call(app, 'token/refresh', { host: 'signin.example.com', 'content-type': 'application/json' }, '{"refresh":"refresh-token-0"}')
  t.same(response.json(), TOKENS)
  t.ok(cookieNamed(response, 'refresh'))
  const withOrigin = await call(app, 'v2/login', { host: 'signin.example.com', 'content-type': 'application/json', origin: 'http://signin.example.com' })
  t.same(withOrigin.json(), { auth: TOKENS.auth }, 'Origin alone says a browser (one without Sec-Fetch-Site): no refresh token')
})

t.test('answers without a token pair set no cookie; none passes a refresh token to the page, nor an auth token without one', async (t) => {
  const cases: Array<[string, number, Record<string, unknown>, unknown]> = [
    ['a refusal', 401, { error: 'Wrong email or password.' }, { error: 'Wrong email or password.' }],
    ['tokens on a refusal', 401, { error: 'No.', ...TOKENS }, { error: 'No.', auth: TOKENS.auth }],
    ['a code due', 200, { second_factor: 'code', challenge: 'c-1', expires_in: 300 }, { second_factor: 'code', challenge: 'c-1', expires_in: 300 }],
    ['a success text', 200, { success: 'Check your email.' }, { success: 'Check your email.' }],
    ['a refresh token alone', 200, { refresh: TOKENS.refresh }, {}],
    ['an auth token alone', 200, { auth: TOKENS.auth }, { error: ACCOUNTS_FAILURE_MESSAGES.unreadable }],
    ['an empty refresh token', 200, { auth: TOKENS.auth, refresh: '' }, { error: ACCOUNTS_FAILURE_MESSAGES.unreadable }]
  ]
  for (const [what, status, answer, seen] of cases) {
    const { app } = await edgeAnswering(t, () => [status, answer])
    const response = await call(app, 'v2/login')
    t.same(response.json(), seen, `${what}: the body the page reads`)
    t.same(setCookies(response).filter((line) => /^(auth|refresh)=/.test(line)), [], `${what}: no token cookie`)
  }
})

t.test('token/revoke takes the refresh cookie\'s token when the body names none, and removes both cookies once it succeeded', async (t) => {
  const { app, upstream } = await edgeAnswering(t, () => [200, { success: 'Signed out.' }])
  const response = await call(app, 'token/revoke', { ...PAGE_CALL, cookie: 'auth=eyJ.a; refresh=refresh-token-1; other=x' })
  t.same(JSON.parse(upstream.requests.at(-1)!.body.toString('utf8')), { refresh: 'refresh-token-1' }, 'the backend reads it in the body, as the accounts API has it')
  t.equal(response.statusCode, 200)
  t.same(setCookies(response).sort(), [
    'auth=; Max-Age=0; Path=/; Domain=example.com; Secure; SameSite=Lax',
    'refresh=; Max-Age=0; Path=/; Domain=example.com; Secure; HttpOnly; SameSite=Lax'
  ], 'the same name, Domain and Path, and Max-Age=0')

  const same = await call(app, 'token/revoke', { ...PAGE_CALL, cookie: 'refresh=refresh-token-1' }, '{"refresh":"refresh-token-1"}')
  t.equal(setCookies(same).length, 2, 'the cookie\'s own token named in the body: removed too')
  const other = await call(app, 'token/revoke', { ...PAGE_CALL, cookie: 'refresh=refresh-token-1' }, '{"refresh":"another-session"}')
  t.same(JSON.parse(upstream.requests.at(-1)!.body.toString('utf8')), { refresh: 'another-session' }, 'a token named in the body is the one revoked')
  t.same(setCookies(other), [], 'another session\'s revocation leaves this browser\'s cookies')
  const none = await call(app, 'token/revoke', PAGE_CALL)
  t.same(JSON.parse(upstream.requests.at(-1)!.body.toString('utf8')), {}, 'no cookie, no token: the backend refuses it')
  t.same(setCookies(none), [])
})

t.test('a deleted account\'s browser loses both token cookies; a refused deletion keeps them', async (t) => {
  let status = 400
  const { app } = await edgeAnswering(t, () => [status, status === 200 ? { success: 'Deleted.' } : { error: 'This is not your account\'s address.' }])
  const refused = await call(app, 'account/delete', { ...PAGE_CALL, cookie: 'auth=eyJ.a; refresh=refresh-token-1' }, '{"confirmEmail":"someone@example.test"}')
  t.equal(refused.statusCode, 400)
  t.same(setCookies(refused), [], 'refused: the session lives on, and so do its cookies')
  status = 200
  const deleted = await call(app, 'account/delete', { ...PAGE_CALL, cookie: 'auth=eyJ.a; refresh=refresh-token-1' }, '{"confirmEmail":"ada@example.test"}')
  t.equal(deleted.statusCode, 200)
  t.same(setCookies(deleted).sort(), [
    'auth=; Max-Age=0; Path=/; Domain=example.com; Secure; SameSite=Lax',
    'refresh=; Max-Age=0; Path=/; Domain=example.com; Secure; HttpOnly; SameSite=Lax'
  ], 'the HttpOnly refresh cookie too, which the page cannot remove')
})

t.test('a refused revocation leaves the cookies where they are', async (t) => {
  const { app } = await edgeAnswering(t, () => [400, { error: 'No refresh token.' }])
  const response = await call(app, 'token/revoke', { ...PAGE_CALL, cookie: 'refresh=refresh-token-1' })
  t.equal(response.statusCode, 400)
  t.same(setCookies(response), [])
})

t.test('with an own backend, token/revoke is filled from the cookie too, and its tokens answers set the cookies', async (t) => {
  const upstream = await startUpstream(t, (request, response) => {
    jsonAnswer(200, request.url === '/token/revoke' ? { success: 'Signed out.' } : { ...TOKENS, email: 'ada@example.test' })(request, response)
  })
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { ACCOUNTS_URL: upstream.url, PASSKEYS: 'true', ALLOWED_HOSTS: 'signin.example.com' } })
  const signedIn = await call(app, 'passkeys/login')
  t.same(signedIn.json(), { auth: TOKENS.auth, email: 'ada@example.test' })
  t.equal(cookieNamed(signedIn, 'refresh')?.value, TOKENS.refresh)
  const revoked = await call(app, 'token/revoke', { ...PAGE_CALL, cookie: `refresh=${TOKENS.refresh}` })
  t.same(JSON.parse(upstream.requests.at(-1)!.body.toString('utf8')), { refresh: TOKENS.refresh })
  t.equal(setCookies(revoked).length, 2, 'both cookies removed')
})
