import t from 'tap'
import type { ServerResponse } from 'node:http'
import { EMBEDDED_SECRET_HEADER } from '../../../../server/shared/embedded-secret.js'
import { CLIENT_CALLS_FACTOR } from '../../../../server/edge/oidc/provider-proxy.js'
import { startEdgeWithUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'

const SECRET = 'embedded-secret-for-the-test'

/** The provider answering each path as the test says: a status, a content type and a body. */
type Answer = [status: number, headers: Record<string, string>, body: string]
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => [status, { 'content-type': 'application/json', ...headers }, JSON.stringify(body)]

async function edgeWithProvider (t: Parameters<typeof startEdgeWithUpstream>[0], answer: (request: RecordedRequest) => Answer, env: Record<string, string> = {}) {
  return await startEdgeWithUpstream(t, (request: RecordedRequest, response: ServerResponse) => {
    const [status, headers, body] = answer(request)
    response.writeHead(status, { 'content-length': Buffer.byteLength(body), ...headers })
    response.end(body)
  }, { embeddedSecret: SECRET, env })
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

t.test('discovery and the provider\'s paths go to the embedded service under the same path, with its secret and the client\'s address', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => json(200, { issuer: 'https://signin.example.com' }, {
    'access-control-allow-origin': '*', 'cache-control': 'public, max-age=300', server: 'oidc-provider', 'x-powered-by': 'Express', 'x-debug': 'internal'
  }))
  const discovery = await app.inject({ method: 'GET', url: '/.well-known/openid-configuration', remoteAddress: '198.51.100.7' })
  t.equal(discovery.statusCode, 200)
  t.same(discovery.json(), { issuer: 'https://signin.example.com' })
  t.equal(discovery.headers['access-control-allow-origin'], '*', 'the provider answers CORS itself')
  t.equal(discovery.headers['cache-control'], 'public, max-age=300')
  t.notOk(discovery.headers.server, 'the provider\'s software is not announced')
  t.notOk(discovery.headers['x-debug'])
  t.match(discovery.headers['content-security-policy'], /default-src 'none'/, 'the edge\'s security headers stay')
  t.equal(discovery.headers['x-frame-options'], 'DENY')
  const seen = upstream.requests[0]!
  t.equal(seen.url, '/.well-known/openid-configuration')
  t.equal(seen.headers[EMBEDDED_SECRET_HEADER], SECRET)
  t.equal(seen.headers['x-forwarded-for'], '198.51.100.7')

  const auth = await app.inject({ method: 'GET', url: '/oidc/auth?client_id=shop&scope=openid+email&state=s%201', headers: { cookie: 'oidc_session=abc; oidc_session.sig=def; tracking=1; auth=a.b.c' } })
  t.equal(auth.statusCode, 200)
  const authSeen = upstream.requests[1]!
  t.match(authSeen.url, /^\/oidc\/auth\?/, 'the same path')
  t.equal(new URL(authSeen.url, 'http://x').searchParams.get('state'), 's 1', 'the query as sent')
  t.equal(authSeen.headers.cookie, 'oidc_session=abc; oidc_session.sig=def; auth=a.b.c', 'the provider\'s and the page session\'s cookies only')
})

t.test('the token endpoint takes a server\'s and another origin\'s calls, with the client\'s credentials, DPoP and the body as sent', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => json(200, { access_token: 'at', token_type: 'DPoP' }, { 'dpop-nonce': 'n1', pragma: 'no-cache', 'cache-control': 'no-store' }))
  const body = 'grant_type=authorization_code&code=c1&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&code_verifier=v'
  const response = await app.inject({
    method: 'POST', url: '/oidc/token', payload: body,
    headers: { ...FORM, authorization: basic('shop', 's'.repeat(40)), dpop: 'proof', origin: 'https://shop.example', 'sec-fetch-site': 'cross-site' }
  })
  t.equal(response.statusCode, 200, 'no same-origin guard on the token endpoint')
  t.equal(response.headers['dpop-nonce'], 'n1')
  t.equal(response.headers.pragma, 'no-cache')
  const seen = upstream.requests[0]!
  t.equal(seen.method, 'POST')
  t.equal(seen.url, '/oidc/token')
  t.equal(seen.body.toString(), body, 'byte for byte')
  t.equal(seen.headers.authorization, basic('shop', 's'.repeat(40)))
  t.equal(seen.headers.dpop, 'proof')
  t.equal(seen.headers.origin, 'https://shop.example')
})

t.test('the consent form is posted only from the page\'s origin: a cross-site post reaches nothing', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => [303, { location: '/oidc/auth/uid-1', 'set-cookie': 'oidc_interaction=; Max-Age=0' }, ''])
  const attack = await app.inject({ method: 'POST', url: '/oidc/interaction/uid-1/consent', payload: 'decision=allow', headers: { ...FORM, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
  t.equal(attack.statusCode, 403)
  t.equal(upstream.requests.length, 0, 'the provider never saw it')
  const own = await app.inject({ method: 'POST', url: '/oidc/interaction/uid-1/consent', payload: 'decision=allow', headers: { ...FORM, host: 'localhost', origin: 'http://localhost', 'sec-fetch-site': 'same-origin' } })
  t.equal(own.statusCode, 303)
  t.equal(own.headers.location, '/oidc/auth/uid-1', 'the provider\'s own redirect, as it wrote it')
  t.match(own.headers['set-cookie'], /oidc_interaction=/)
})

t.test('a body of another type is refused before the provider sees it', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => json(200, {}))
  const response = await app.inject({ method: 'POST', url: '/oidc/token', payload: '<xml/>', headers: { 'content-type': 'text/xml' } })
  t.equal(response.statusCode, 415)
  t.equal(upstream.requests.length, 0)
})

t.test('with an own accounts backend the provider\'s paths are not found and nothing is proxied', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => json(200, { issuer: 'x' }), { ACCOUNTS_URL: 'http://127.0.0.1:9' })
  for (const url of ['/.well-known/openid-configuration', '/oidc/token', '/oidc/auth']) {
    const response = await app.inject({ method: url === '/oidc/token' ? 'POST' : 'GET', url, headers: FORM, payload: url === '/oidc/token' ? 'a=b' : undefined })
    t.equal(response.statusCode, 404, url)
  }
  t.equal(upstream.requests.length, 0)
})

t.test('the token endpoint is limited per client, not per address: one client\'s flood leaves another\'s calls alone', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => json(200, { access_token: 'at' }), { RATE_LIMIT_PER_MINUTE: '2' })
  const allowance = 2 * CLIENT_CALLS_FACTOR
  const statuses: number[] = []
  for (let call = 0; call < allowance + 2; call++) {
    const response = await app.inject({ method: 'POST', url: '/oidc/token', payload: 'grant_type=refresh_token&refresh_token=r', headers: { ...FORM, authorization: basic('busy', 'x'.repeat(40)) } })
    statuses.push(response.statusCode)
  }
  t.same(statuses.slice(0, allowance), Array(allowance).fill(200), 'a client\'s server is not held to a visitor\'s 2 a minute')
  t.same(statuses.slice(allowance), [429, 429])
  const other = await app.inject({ method: 'POST', url: '/oidc/token', payload: 'grant_type=authorization_code&code=c&client_id=mobile-app&code_verifier=v', headers: FORM })
  t.equal(other.statusCode, 200, 'another client from the same address has its own count (its id from the form)')
  t.equal(upstream.requests.length, allowance + 1)
})

t.test('an attack: wrong secrets under made-up client ids from one address are refused once the address has had its allowance', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => json(401, { error: 'invalid_client' }), { RATE_LIMIT_PER_MINUTE: '3' })
  const statuses: number[] = []
  for (let guess = 0; guess < 12; guess++) {
    const response = await app.inject({ method: 'POST', url: '/oidc/token', payload: 'grant_type=client_credentials', headers: { ...FORM, authorization: basic(`made-up-${guess}`, `guess-${guess}`) }, remoteAddress: '203.0.113.9' })
    statuses.push(response.statusCode)
  }
  t.same(statuses.slice(0, 3), [401, 401, 401])
  t.ok(statuses.slice(3).every((status) => status === 429), 'every later guess is refused at the edge')
  t.equal(upstream.requests.length, 3, 'the provider saw three guesses')
  const elsewhere = await app.inject({ method: 'POST', url: '/oidc/token', payload: 'grant_type=client_credentials', headers: { ...FORM, authorization: basic('shop', 'right') }, remoteAddress: '198.51.100.20' })
  t.equal(elsewhere.statusCode, 401, 'another address is not held by it')
})

t.test('the provider\'s other form posts are limited per address', async (t) => {
  const { app } = await edgeWithProvider(t, () => json(200, {}), { RATE_LIMIT_PER_MINUTE: '2' })
  const statuses: number[] = []
  for (let call = 0; call < 3; call++) {
    statuses.push((await app.inject({ method: 'POST', url: '/oidc/session/end', payload: 'client_id=shop', headers: FORM })).statusCode)
  }
  t.same(statuses, [200, 200, 429])
  const get = await app.inject({ method: 'GET', url: '/oidc/jwks' })
  t.equal(get.statusCode, 200, 'GETs are not counted: key sets and discovery are fetched often')
})

t.test('an attack: a path that climbs out of /oidc/ reaches none of the reference service\'s other paths', async (t) => {
  const { app, upstream } = await edgeWithProvider(t, () => json(200, { secret: 'internal' }))
  for (const url of ['/oidc/../token/refresh', '/oidc/..%2ftoken%2frefresh', '/oidc/%2e%2e/token/refresh', '/oidc/%2E%2E%2Faccount%2Fdelete', '/oidc/..\\token', '/oidc/%5c..%5ctoken', '/.well-known/openid-configuration/../../token/refresh']) {
    const response = await app.inject({ method: 'GET', url })
    t.ok(response.statusCode === 400 || response.statusCode === 404, `${url}: refused (${response.statusCode})`)
    t.notMatch(response.body, 'internal')
  }
  t.equal(upstream.requests.length, 0, 'the service saw none of them')
})
