import t, { type Test } from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { SOCIAL_ROUTES } from '../../../../server/shared/accounts-routes.js'
import { buildEdge, jsonAnswer, listen, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import type { ServerResponse } from 'node:http'

/*
 * The social connections' calls through the edge (docs/social-sign-in.md): proxied only when SOCIAL_CONNECTIONS
 * names one; the JSON calls same-origin only, Apple's form_post from its own site; the `social_state` binding
 * both ways; the per-address allowance over the start as over the SSO start.
 */

const GITHUB = JSON.stringify([{ type: 'github', client_id: 'gh-client', client_secret: 'gh-secret' }])
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }
const APPLE_POST = {
  'content-type': 'application/x-www-form-urlencoded',
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'navigate',
  origin: 'https://appleid.apple.com'
}
const JSON_PATHS = SOCIAL_ROUTES.filter((route) => route.kind === 'json').map((route) => route.path)

/** A stand-in accounts service: the start answers a URL and the binding cookie, the form post a 303 to `continue`, the rest JSON. */
function socialService (request: RecordedRequest, response: ServerResponse): void {
  if (request.url === '/auth/social/form-post/apple') {
    response.writeHead(303, { location: 'https://signin.example.com/accounts/auth/social/continue?code=parked-1', 'content-length': 0 })
    response.end()
    return
  }
  if (request.url.startsWith('/auth/social/')) {
    response.writeHead(303, { location: 'https://signin.example.com/?social=github&id=single-use&login=1', 'content-length': 0 })
    response.end()
    return
  }
  if (request.url === '/auth/login/social') {
    jsonAnswer(200, { url: 'https://github.com/login/oauth/authorize?state=s' }, { 'set-cookie': 'social_state=binding-1; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=600' })(request, response)
    return
  }
  jsonAnswer(200, { success: 'ok' })(request, response)
}

async function socialEdge (t: Test, env: Record<string, string> = {}) {
  const upstream = await startUpstream(t, socialService)
  const app = await buildEdge(t, { accountsUpstream: upstream.url, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES, env: { SOCIAL_CONNECTIONS: GITHUB, ...env } })
  return { app, upstream, base: await listen(app) }
}

t.test('without a connection the social calls are not proxied', async (t) => {
  const upstream = await startUpstream(t, socialService)
  const app = await buildEdge(t, { accountsUpstream: upstream.url, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  for (const route of SOCIAL_ROUTES) {
    const path = route.path.replace(':provider', 'github')
    const response = route.kind === 'read'
      ? await app.inject({ url: `/accounts/${path}?code=c&state=s` })
      : await app.inject({ method: 'POST', url: `/accounts/${path}`, headers: route.kind === 'json' ? JSON_HEADERS : APPLE_POST, payload: route.kind === 'json' ? '{}' : 'code=c' })
    // A form body on a path the edge does not proxy is refused before it is read (no parser takes it there): 415.
    t.equal(response.statusCode, route.kind === 'form' ? 415 : 404, route.path)
  }
  t.equal(upstream.requests.length, 0, 'the backend never asked')
})

t.test('with a connection each call reaches the service, the links\' queries and the form\'s body as sent', async (t) => {
  const { app, upstream } = await socialEdge(t)
  for (const path of JSON_PATHS) {
    const response = await app.inject({ method: 'POST', url: `/accounts/${path}`, headers: JSON_HEADERS, payload: '{"provider":"github"}' })
    t.equal(response.statusCode, 200, path)
    t.equal(upstream.requests.at(-1)!.url, `/${path}`)
  }
  const callback = await app.inject({ url: '/accounts/auth/social/callback/github?code=c-1&state=s-1' })
  t.equal(callback.statusCode, 303)
  t.equal(callback.headers.location, 'https://signin.example.com/?social=github&id=single-use&login=1')
  t.equal(upstream.requests.at(-1)!.url, '/auth/social/callback/github?code=c-1&state=s-1', 'the provider\'s answer is in the query')
  const continued = await app.inject({ url: '/accounts/auth/social/continue?code=parked-1' })
  t.equal(continued.statusCode, 303)
})

t.test('attack: a JSON call from another site never reaches the service; Apple\'s form post from its own site does', async (t) => {
  const { app, upstream, base } = await socialEdge(t)
  const host = new URL(base).host
  for (const path of JSON_PATHS) {
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://appleid.apple.com' }]) {
      const response = await app.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, host, ...headers }, payload: '{"provider":"github"}' })
      t.equal(response.statusCode, 403, `${path}: ${JSON.stringify(headers)}`)
    }
  }
  t.equal(upstream.requests.length, 0)

  const body = 'code=c-apple&state=s-apple&id_token=a.b.c&user=%7B%22name%22%3A%7B%22firstName%22%3A%22Ada%22%7D%7D'
  const posted = await app.inject({ method: 'POST', url: '/accounts/auth/social/form-post/apple', headers: { ...APPLE_POST, host }, payload: body })
  t.equal(posted.statusCode, 303, 'handed over')
  t.equal(posted.headers.location, 'https://signin.example.com/accounts/auth/social/continue?code=parked-1')
  t.equal(upstream.requests.length, 1)
  t.equal(upstream.requests[0]!.body.toString('utf8'), body, 'byte for byte')
  t.equal(upstream.requests[0]!.headers['content-type'], 'application/x-www-form-urlencoded')

  const asJson = await app.inject({ method: 'POST', url: '/accounts/auth/social/form-post/apple', headers: { ...APPLE_POST, host, 'content-type': 'application/json' }, payload: '{}' })
  t.equal(asJson.statusCode, 415, 'the form post takes a form only')
  const read = await app.inject({ method: 'GET', url: '/accounts/auth/social/form-post/apple' })
  t.equal(read.statusCode, 405)
})

t.test('the social_state cookie passes both ways, and only to the calls that read it', async (t) => {
  const { app, upstream } = await socialEdge(t)
  const cookie = 'social_state=binding-1; sso_state=sso-1; auth=product-token; other=1'
  // On the page's public host: on http://localhost the edge drops Secure, which Safari keeps no cookie with there.
  const start = await app.inject({ method: 'POST', url: '/accounts/auth/login/social', headers: { ...JSON_HEADERS, cookie, host: 'signin.example.com' }, payload: '{"provider":"github","source":"login"}' })
  t.match(start.headers['set-cookie'], /^social_state=binding-1; Path=\/; HttpOnly; Secure; SameSite=Lax; Max-Age=600$/, 'set on the browser as the service set it')
  t.match(start.json(), { url: 'https://github.com/login/oauth/authorize?state=s' })

  const cookiesAt = async (request: () => Promise<unknown>): Promise<string[]> => {
    await request()
    return String(upstream.requests.at(-1)!.headers.cookie ?? '').split('; ').filter((pair) => pair !== '').map((pair) => pair.split('=')[0]!).sort()
  }
  const post = (path: string) => async () => await app.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, cookie }, payload: '{}' })
  for (const path of ['auth/login/social', 'v2/auth/login', 'account/social/link/start', 'account/social/link']) {
    t.ok((await cookiesAt(post(path))).includes('social_state'), `${path} reads it`)
  }
  t.ok((await cookiesAt(async () => await app.inject({ url: '/accounts/auth/social/callback/github?code=c&state=s', headers: { cookie } }))).includes('social_state'), 'the callback reads it')
  t.ok((await cookiesAt(async () => await app.inject({ url: '/accounts/auth/social/continue?code=c', headers: { cookie } }))).includes('social_state'), 'the hand-over reads it')
  for (const path of ['v2/login', 'register', 'account/social/unlink']) {
    const names = await cookiesAt(post(path))
    t.notOk(names.includes('social_state'), `${path} does not get it`)
    t.notOk(names.includes('auth'), `${path}: never the product's auth cookie`)
  }
})

t.test('the link calls bear the account\'s token and fresh proof, as the account view\'s other changes', async (t) => {
  const { app, upstream } = await socialEdge(t)
  for (const path of ['account/social/link/start', 'account/social/link', 'account/social/unlink']) {
    await app.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, authorization: 'Bearer a.b.c', cookie: 'threshold_proof=p' }, payload: '{}' })
    t.equal(upstream.requests.at(-1)!.headers.authorization, 'Bearer a.b.c', path)
    t.equal(upstream.requests.at(-1)!.headers.cookie, 'threshold_proof=p', path)
  }
  await app.inject({ method: 'POST', url: '/accounts/auth/login/social', headers: { ...JSON_HEADERS, authorization: 'Bearer a.b.c' }, payload: '{}' })
  t.equal(upstream.requests.at(-1)!.headers.authorization, undefined, 'the start bears none')
})

t.test('the start is counted against the per-address allowance, as the SSO start', async (t) => {
  const { app, upstream } = await socialEdge(t, { RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'loopback' })
  const start = (address: string) => app.inject({ method: 'POST', url: '/accounts/auth/login/social', headers: { ...JSON_HEADERS, 'x-forwarded-for': address }, payload: '{"provider":"github"}' })
  t.equal((await start('198.51.100.7')).statusCode, 200)
  t.equal((await start('198.51.100.7')).statusCode, 200)
  const limited = await start('198.51.100.7')
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal(upstream.requests.length, 2)
  t.equal((await start('198.51.100.8')).statusCode, 200, 'another address has its own allowance')
  const sso = await app.inject({ method: 'POST', url: '/accounts/auth/login/sso', headers: { ...JSON_HEADERS, 'x-forwarded-for': '198.51.100.8' }, payload: '{}' })
  t.equal(sso.statusCode, 200)
  t.equal((await start('198.51.100.8')).statusCode, 429, 'one allowance for the sign-in starts and the other calls')
  const callback = await app.inject({ url: '/accounts/auth/social/callback/github?code=c&state=s', headers: { 'x-forwarded-for': '198.51.100.7' } })
  t.equal(callback.statusCode, 303, 'the provider\'s return, a link, is not counted')
})

t.test('behind ACCOUNTS_URL the connections need no secret, and the calls go to the own backend', async (t) => {
  const upstream = await startUpstream(t, socialService)
  const app = await buildEdge(t, {
    accountsUpstream: upstream.url,
    env: { ACCOUNTS_URL: upstream.url, SOCIAL_CONNECTIONS: JSON.stringify([{ type: 'apple', client_id: 'com.example.web' }]) }
  })
  const start = await app.inject({ method: 'POST', url: '/accounts/auth/login/social', headers: JSON_HEADERS, payload: '{"provider":"apple"}' })
  t.equal(start.statusCode, 200)
  t.equal(upstream.requests.at(-1)!.url, '/auth/login/social')
  const posted = await app.inject({ method: 'POST', url: '/accounts/auth/social/form-post/apple', headers: APPLE_POST, payload: 'code=c&state=s' })
  t.equal(posted.statusCode, 303)
})

t.test('a social completion is counted as a sign-in of its own method, one label for every provider', async (t) => {
  const upstream = await startUpstream(t, (request, response) => {
    const body = JSON.parse(request.body.toString('utf8')) as { id?: string }
    if (body.id === 'good') jsonAnswer(200, { auth: 'a.b.c', refresh: 'refresh-1' })(request, response)
    else jsonAnswer(401, { error: 'This sign-in has expired. Please try again.' })(request, response)
  })
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { SOCIAL_CONNECTIONS: GITHUB, METRICS_PORT: '0' } })
  const complete = (id: string, provider: string) => app.inject({ method: 'POST', url: '/accounts/v2/auth/login', headers: JSON_HEADERS, payload: JSON.stringify({ login_method: 'SOCIAL', provider, id }) })
  t.equal((await complete('good', 'github')).statusCode, 200)
  t.equal((await complete('used', 'github')).statusCode, 401)
  t.equal((await complete('used', 'a-provider-the-client-made-up')).statusCode, 401)
  const text = await app.metrics!.registry.metrics()
  t.match(text, /threshold_sign_ins_total\{method="social",outcome="success"\} 1/)
  t.match(text, /threshold_sign_ins_total\{method="social",outcome="refused"\} 2/)
  t.notMatch(text, /made-up|github/, 'no provider a body names becomes a label')
})

t.test('each connection\'s return address is counted under one route label, whatever id a request names', async (t) => {
  const { app } = await socialEdge(t, { METRICS_PORT: '0' })
  for (const provider of ['github', 'made-up-1', 'made-up-2']) {
    t.equal((await app.inject({ url: `/accounts/auth/social/callback/${provider}?code=c&state=s` })).statusCode, 303, provider)
  }
  const text = await app.metrics!.registry.metrics()
  t.match(text, /threshold_http_requests_total\{route="accounts\/auth\/social\/callback\/:provider",method="GET",status="303"\} 3/)
  t.notMatch(text, /made-up/, 'no id a request names becomes a label')
})
