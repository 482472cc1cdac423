import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { SPEC_ACCOUNTS_PATHS } from '../../../common/accounts-paths.js'
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, listen, startUpstream } from '../../fixtures/edge.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

async function post (url: string, body: string, headers: Record<string, string> = JSON_HEADERS): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body })
}

t.test('each of the spec paths is proxied with its body byte for byte and the answer intact', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Invalid email or password.' }))
  const app = await buildEdge(t, { accountsUpstream: `${upstream.url}/base` })
  const base = await listen(app)
  const body = '{ "email" : "zoë@example.test",\n  "password":"p\\u00e4ss",  "insecure_allowed_orgs":["a"] }'

  for (const path of SPEC_ACCOUNTS_PATHS) {
    const response = await post(`${base}/accounts/${path}?trace=1`, body)
    t.equal(response.status, 401, `${path}: status passes through`)
    t.same(await response.json(), { error: 'Invalid email or password.' }, `${path}: body passes through`)
    const seen = upstream.requests.at(-1)!
    t.equal(seen.url, `/base/${path}?trace=1`, `${path}: reaches the same path under the base URL`)
    t.equal(seen.method, 'POST')
    t.equal(seen.body.toString('utf8'), body, `${path}: the upstream receives the exact bytes`)
  }
})

t.test('the edge states the client address, scheme and host itself; spoofed forwarding headers are dropped', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  const base = await listen(app)
  await post(`${base}/accounts/v2/login`, '{}', {
    ...JSON_HEADERS,
    'x-forwarded-for': '6.6.6.6',
    'x-forwarded-host': 'evil.test',
    'x-forwarded-proto': 'https',
    forwarded: 'for=6.6.6.6;host=evil.test',
    'x-real-ip': '6.6.6.6',
    'true-client-ip': '6.6.6.6',
    'x-request-id': 'client-chosen-id'
  })
  const seen = upstream.requests[0]!.headers
  t.equal(seen['x-forwarded-for'], '127.0.0.1')
  t.equal(seen['x-forwarded-proto'], 'http')
  t.equal(seen['x-forwarded-host'], new URL(base).host)
  t.equal(seen.forwarded, undefined)
  t.equal(seen['x-real-ip'], undefined)
  t.equal(seen['true-client-ip'], undefined)
  t.ok(typeof seen['x-request-id'] === 'string' && seen['x-request-id'] !== '', 'a request id is sent')
})

t.test('behind a trusted proxy, the address it reports is the one forwarded', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { TRUST_PROXY: '127.0.0.1/32' } })
  const base = await listen(app)
  await post(`${base}/accounts/v2/login`, '{}', {
    ...JSON_HEADERS, 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'signin.example.com'
  })
  const seen = upstream.requests[0]!.headers
  t.equal(seen['x-forwarded-for'], '203.0.113.9')
  t.equal(seen['x-forwarded-proto'], 'https')
  t.equal(seen['x-forwarded-host'], 'signin.example.com')
})

t.test('cookies pass both ways', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { sso_url: 'https://idp.example.test/start' }, {
    'set-cookie': ['sso_state=abc; Path=/accounts; HttpOnly; Secure; SameSite=Lax', 'other=1; Path=/']
  }))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  const response = await app.inject({
    method: 'POST', url: '/accounts/auth/login/sso', headers: { ...JSON_HEADERS, cookie: 'session=xyz' }, payload: '{}'
  })
  t.equal(upstream.requests[0]!.headers.cookie, 'session=xyz')
  t.same(response.headers['set-cookie'], ['sso_state=abc; Path=/accounts; HttpOnly; Secure; SameSite=Lax', 'other=1; Path=/'])
})

t.test('unlisted paths answer 404 and other methods 405, without calling the backend', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  for (const url of ['/accounts/admin', '/accounts/v2/login/', '/accounts/V2/login', '/accounts/v2%2Flogin', '/accounts/resetPassword']) {
    const response = await app.inject({ method: 'POST', url, headers: JSON_HEADERS, payload: '{}' })
    t.equal(response.statusCode, 404, `${url} is not proxied`)
    t.same(response.json(), { error: 'Not found.' })
  }
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
    const response = await app.inject({ method, url: '/accounts/v2/login' })
    t.equal(response.statusCode, 405, `${method} is refused`)
    t.equal(response.headers.allow, 'POST')
  }
  t.equal(upstream.requests.length, 0)
})

t.test('bodies over 16 KiB are refused with 413 before the backend is called', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  const base = await listen(app)
  const exactly = `{"x":"${'a'.repeat(16 * 1024 - 8)}"}`
  t.equal(Buffer.byteLength(exactly), 16 * 1024)
  t.equal((await post(`${base}/accounts/register`, exactly)).status, 200, 'exactly 16 KiB passes')
  const tooLarge = await post(`${base}/accounts/register`, `{"x":"${'a'.repeat(16 * 1024)}"}`)
  t.equal(tooLarge.status, 413)
  t.match(await tooLarge.json(), { error: /too large/i })

  // A chunked body without Content-Length is cut off as soon as it passes the limit.
  const chunked = await new Promise<number>((resolve, reject) => {
    const request = httpRequest(`${base}/accounts/register`, { method: 'POST', headers: JSON_HEADERS }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', reject)
    request.write(`{"x":"${'a'.repeat(10_000)}`)
    request.write(`${'a'.repeat(10_000)}"}`)
    request.end()
  })
  t.equal(chunked, 413)
  t.equal(upstream.requests.length, 1, 'only the request within the limit reached the backend')
})

t.test('only JSON bodies are accepted, and only valid JSON', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
    const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': contentType }, payload: '{}' })
    t.equal(response.statusCode, 415, `${contentType} is refused`)
  }
  const missing = await app.inject({ method: 'POST', url: '/accounts/v2/login', payload: '' })
  t.equal(missing.statusCode, 415, 'a body without a type is refused')
  const charset = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '{}' })
  t.equal(charset.statusCode, 200, 'a charset parameter is fine')
  for (const payload of ['{', '', 'nul', '{"a":1}}']) {
    const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: JSON_HEADERS, payload })
    t.equal(response.statusCode, 400, `${JSON.stringify(payload)} is refused`)
  }
  t.equal(upstream.requests.length, 1)
})

t.test('cross-site requests are refused; same-origin and non-browser requests pass', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  const base = await listen(app)
  const cases: Array<[Record<string, string>, number, string]> = [
    [{ 'sec-fetch-site': 'cross-site' }, 403, 'Sec-Fetch-Site: cross-site'],
    [{ 'sec-fetch-site': 'same-site' }, 403, 'Sec-Fetch-Site: same-site (a sibling subdomain)'],
    [{ 'sec-fetch-site': 'none' }, 403, 'Sec-Fetch-Site: none'],
    [{ origin: 'https://evil.test' }, 403, 'a foreign Origin'],
    [{ origin: 'null' }, 403, 'Origin: null (sandboxed frames, data: URLs)'],
    [{ 'sec-fetch-site': 'same-origin', origin: base }, 200, 'same-origin'],
    [{ origin: base }, 200, 'an older browser sending only a matching Origin'],
    [{}, 200, 'a program, which sends neither']
  ]
  for (const [headers, status, what] of cases) {
    const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_HEADERS, host: new URL(base).host, ...headers }, payload: '{}' })
    t.equal(response.statusCode, status, what)
  }
  t.equal(upstream.requests.length, 3)
  const refused = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' }, payload: '{}' })
  t.equal(refused.statusCode, 403, 'a text/plain "simple" request from another site gets nowhere')
})

t.test('proxied calls are rate limited per client address, with Retry-After', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'loopback' } })
  const from = (address: string) => ({ ...JSON_HEADERS, 'x-forwarded-for': address })
  const call = (address: string) => app.inject({ method: 'POST', url: '/accounts/v2/login', headers: from(address), payload: '{}' })

  for (let attempt = 0; attempt < 3; attempt++) t.equal((await call('198.51.100.7')).statusCode, 200)
  const limited = await call('198.51.100.7')
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After says when to come back')
  t.match(limited.json(), { error: /Too many requests/ })
  t.equal((await call('198.51.100.8')).statusCode, 200, 'another address has its own allowance')

  for (let attempt = 0; attempt < 3; attempt++) t.equal((await call('2001:db8:1:2::1')).statusCode, 200)
  t.equal((await call('2001:db8:1:2:ffff::9')).statusCode, 429, 'an IPv6 client is counted by its /64')
  t.equal((await call('2001:db8:1:3::1')).statusCode, 200, 'the next /64 is another client')
  t.equal(upstream.requests.length, 8)
})

t.test('a backend that refuses connections gives 503 naming no address', async (t) => {
  const app = await buildEdge(t, { accountsUpstream: DEAD_UPSTREAM })
  const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: JSON_HEADERS, payload: '{}' })
  t.equal(response.statusCode, 503)
  t.match(response.json(), { error: /unavailable/ })
  t.notMatch(response.body, /127\.0\.0\.1|:9\b|ECONN/)
})

t.test('a backend that resets the connection gives 502 naming no address', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => { response.socket?.destroy() })
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: JSON_HEADERS, payload: '{}' })
  t.equal(response.statusCode, 502)
  t.notMatch(response.body, /127\.0\.0\.1|ECONN|socket/i)
})

t.test('a backend that does not answer in time gives 504', async (t) => {
  const upstream = await startUpstream(t, () => { /* never answers */ })
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { UPSTREAM_TIMEOUT_MS: '300' } })
  const started = Date.now()
  const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: JSON_HEADERS, payload: '{}' })
  t.equal(response.statusCode, 504)
  t.match(response.json(), { error: /did not answer in time/ })
  t.ok(Date.now() - started < 3000, 'the edge gives up at the configured timeout')
})

t.test('a backend whose TLS certificate does not verify is not trusted', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-tls-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-keyout', join(folder, 'key.pem'), '-out', join(folder, 'cert.pem')], { stdio: 'ignore' })
  let reached = false
  const server = createHttpsServer({ key: readFileSync(join(folder, 'key.pem')), cert: readFileSync(join(folder, 'cert.pem')) }, (_request, response) => {
    reached = true
    response.end('{}')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const app = await buildEdge(t, { accountsUpstream: `https://127.0.0.1:${(server.address() as AddressInfo).port}` })
  const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: JSON_HEADERS, payload: '{"password":"secret"}' })
  t.equal(response.statusCode, 502)
  t.equal(reached, false, 'no request (and no password) went to the unverified server')
})
