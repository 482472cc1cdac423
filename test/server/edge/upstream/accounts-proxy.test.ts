import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { SPEC_ACCOUNTS_PATHS } from '../../../../common/http/accounts-paths.js'
import { ACCOUNTS_REQUEST_HEADERS } from '../../../../server/edge/upstream/accounts-proxy.js'
import { BROWSER_COOKIE } from '../../../../server/reference/known-browsers/browser-cookie.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { SSO_STATE_COOKIE } from '../../../../server/reference/sso/state-cookie.js'
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, listen, captureLog, startUpstream } from '../../../fixtures/servers/edge.js'
import { rawExchange, rawRequest } from '../../../fixtures/http/raw-http.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

async function post (url: string, body: string, headers: Record<string, string> = JSON_HEADERS): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body })
}

t.test('each of the spec paths is proxied with its body byte for byte and the answer intact, without the query string', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Invalid email or password.' }))
  const app = await buildEdge(t, { accountsUpstream: `${upstream.url}/base` })
  const base = await listen(app)
  const body = '{ "email" : "zoë@example.test",\n  "password":"p\\u00e4ss",  "insecure_allowed_orgs":["a"] }'

  for (const path of SPEC_ACCOUNTS_PATHS) {
    const response = await post(`${base}/accounts/${path}?trace=1`, body)
    t.equal(response.status, 401, `${path}: status passes through`)
    t.same(await response.json(), { error: 'Invalid email or password.' }, `${path}: body passes through`)
    const seen = upstream.requests.at(-1)!
    t.equal(seen.url, `/base/${path}`, `${path}: reaches the same path under the base URL, and the query string stays at the edge`)
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

/**
 * Each header an attacker sends to rewrite the target, claim an address,
 * smuggle credentials or upset the connection to the backend, by name.
 */
const ATTACK_HEADERS: Array<[string, string]> = [
  ['X-Original-URL', '/admin'],
  ['X-Rewrite-URL', '/admin'],
  ['X-Override-URL', '/admin'],
  ['X-HTTP-Method-Override', 'DELETE'],
  ['X-HTTP-Method', 'DELETE'],
  ['X-Method-Override', 'DELETE'],
  ['Client-IP', '6.6.6.6'],
  ['X-Client-IP', '6.6.6.6'],
  ['X-Originating-IP', '6.6.6.6'],
  ['X-Remote-IP', '6.6.6.6'],
  ['X-Remote-Addr', '6.6.6.6'],
  ['X-Real-IP', '6.6.6.6'],
  ['True-Client-IP', '6.6.6.6'],
  ['CF-Connecting-IP', '6.6.6.6'],
  ['X-Cluster-Client-IP', '6.6.6.6'],
  ['Forwarded', 'for=6.6.6.6;host=evil.test;proto=https'],
  ['X-Forwarded-Port', '443'],
  ['X-Forwarded-Server', 'evil.test'],
  ['X-Forwarded-Prefix', '/evil'],
  ['X-Host', 'evil.test'],
  ['X-Original-Host', 'evil.test'],
  ['Via', '1.1 evil-proxy'],
  ['Proxy-Authorization', 'Basic c3RvbGVuOmNyZWRz'],
  ['Authorization', 'Basic c3RvbGVuOmNyZWRz'],
  ['Accept-Encoding', 'gzip, br'],
  ['Referer', 'https://signin.example.test/?view=setPassword&token=secret'],
  ['Origin', 'http://localhost'],
  ['Keep-Alive', 'timeout=5'],
  ['Upgrade', 'h2c'],
  ['Proxy-Connection', 'keep-alive'],
  ['TE', 'trailers'],
  ['Expect', '100-continue'],
  ['X-Debug', '1'],
  ['X-Request-Id', 'attacker-chosen-id']
]

/**
 * Every header the accounts service receives on an ordinary call, and nothing
 * else (`Connection` is undici's own, for its pool of connections).
 */
const ACCOUNTS_HEADERS_RECEIVED = [
  'accept', 'accept-encoding', 'accept-language', 'connection', 'content-length', 'content-type', 'cookie', 'host', 'user-agent',
  'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-request-id'
]

t.test('the accounts service receives only the headers on its list: each attack header is absent', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const { lines, logger } = captureLog()
  const app = await buildEdge(t, { accountsUpstream: upstream.url, logger, env: { ALLOWED_HOSTS: 'localhost' } })
  const base = await listen(app)
  const headers: Array<[string, string]> = [
    ['Host', 'localhost'], ['Content-Type', 'application/json'], ['Accept', 'application/json'],
    ['User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0'], ['Cookie', 'threshold_browser=b.mac; _ga=1'],
    ['Accept-Language', 'de'],
    ...ATTACK_HEADERS
  ]
  const exchange = await rawExchange(base, rawRequest('POST', '/accounts/v2/login', headers, '{"email":"a@b.test"}'))
  t.equal(exchange.responses.at(-1)?.status, 200, 'answered as any call (Expect: 100-continue is met, not passed on)')
  const seen = upstream.requests[0]!
  for (const [name, value] of ATTACK_HEADERS) {
    if (name === 'X-Request-Id') t.not(seen.headers['x-request-id'], value, 'X-Request-Id: the edge\'s own, not the client\'s')
    else if (name === 'Accept-Encoding') t.equal(seen.headers['accept-encoding'], 'identity', 'Accept-Encoding: the edge\'s own identity, not the client\'s')
    else t.equal(seen.headers[name.toLowerCase()], undefined, `${name} is not passed on`)
  }
  t.same(Object.keys(seen.headers).sort(), ACCOUNTS_HEADERS_RECEIVED, 'nothing but the listed headers')
  t.equal(seen.headers['accept-language'], 'de', 'Accept-Language is passed on: the page\'s language, for the backend\'s texts and emails')
  t.equal(seen.url, '/v2/login', 'X-Original-URL and X-Rewrite-URL change nothing')
  t.equal(seen.method, 'POST', 'nor do the method overrides')
  t.equal(seen.headers['user-agent'], 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', 'the browser is named for the "was this you?" email')
  t.equal(seen.headers.cookie, 'threshold_browser=b.mac')
  t.equal(seen.headers.connection, 'keep-alive', 'the edge\'s own Connection header, not the client\'s')
  t.same(lines.filter((line) => line.level >= 40).map((line) => line.msg), [], 'no warning and no error logged')
})

t.test('Authorization reaches the accounts service on the two Google calls alone', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  for (const path of ['v2/auth/login', 'auth/register', 'v2/login', 'register', 'resetPasswordRequest', 'auth/login/sso']) {
    await app.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, authorization: 'Bearer google.id.token' }, payload: '{}' })
    const expected = path === 'v2/auth/login' || path === 'auth/register' ? 'Bearer google.id.token' : undefined
    t.equal(upstream.requests.at(-1)?.headers.authorization, expected, `${path}: ${expected === undefined ? 'dropped' : 'passed on'}`)
  }
})

t.test('the reference service\'s GET links keep their query (it carries their token), and no body headers', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  const base = await listen(app)
  const exchange = await rawExchange(base, rawRequest('GET', '/accounts/verifyEmail?token=abc', { 'Content-Type': 'text/plain' }, 'hello'))
  t.equal(exchange.responses[0]?.status, 200, 'a GET announcing a body is answered, not failed on')
  const seen = upstream.requests[0]!
  t.equal(seen.url, '/verifyEmail?token=abc')
  t.equal(seen.headers['content-length'], undefined, 'no Content-Length for a body that is not sent')
  t.equal(seen.headers['content-type'], undefined)
  await post(`${base}/accounts/token/refresh?token=abc`, '{}')
  t.equal(upstream.requests[1]?.url, '/token/refresh', 'a JSON call of the reference service loses its query all the same')
})

t.test('a request id is kept only from a trusted proxy, and only a sane one', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const direct = await buildEdge(t, { accountsUpstream: upstream.url })
  const response = await direct.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_HEADERS, 'x-request-id': 'chosen-by-client' }, payload: '{}' })
  t.not(upstream.requests.at(-1)?.headers['x-request-id'], 'chosen-by-client', 'a client\'s own id is replaced')
  t.match(upstream.requests.at(-1)?.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'by a UUID of the edge')
  t.equal(response.statusCode, 200)

  const proxied = await buildEdge(t, { accountsUpstream: upstream.url, env: { TRUST_PROXY: 'loopback' } })
  const ids: Array<[string, boolean]> = [
    ['lb-7f3a:12.x', true],
    ['a'.repeat(65), false],
    ['<script>', false],
    ['id with spaces', false],
    ['a'.repeat(5000), false]
  ]
  for (const [id, kept] of ids) {
    await proxied.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_HEADERS, 'x-request-id': id }, payload: '{}' })
    const sent = upstream.requests.at(-1)?.headers['x-request-id']
    t.equal(sent === id, kept, `${id.slice(0, 20)}: ${kept ? 'kept' : 'replaced'}`)
  }
})

t.test('behind a proxy that appends ports, the backend is told the bare address', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { TRUST_PROXY: 'loopback' } })
  const cases: Array<[string, string]> = [
    ['198.51.100.9:40000', '198.51.100.9'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:2', '2001:db8::2'],
    ['::ffff:198.51.100.10', '198.51.100.10'],
    ['203.0.113.5:1234, 127.0.0.1:5555', '203.0.113.5']
  ]
  for (const [forwardedFor, told] of cases) {
    await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_HEADERS, 'x-forwarded-for': forwardedFor }, payload: '{}' })
    t.equal(upstream.requests.at(-1)?.headers['x-forwarded-for'], told, `${forwardedFor} → ${told}`)
  }
  await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_HEADERS, 'x-forwarded-proto': 'javascript' }, payload: '{}' })
  t.equal(upstream.requests.at(-1)?.headers['x-forwarded-proto'], 'http', 'a scheme is http or https, nothing else')
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

t.test('of the parent domain\'s cookies only those the accounts calls read reach the service; its own come back', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { sso_url: 'https://idp.example.test/start' }, {
    'set-cookie': ['sso_state=abc; Path=/accounts; HttpOnly; SameSite=Lax', 'other=1; Path=/']
  }))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  const response = await app.inject({
    method: 'POST',
    url: '/accounts/auth/login/sso',
    headers: {
      ...JSON_HEADERS,
      cookie: 'session=xyz; sso_state=abc; _ga=GA1.2.3; threshold_browser=id.mac; auth=eyJ.auth.token; refresh=r1; sso_statex=1; threshold_edge_browser=1:tag; broken'
    },
    payload: '{}'
  })
  t.equal(upstream.requests[0]!.headers.cookie, 'sso_state=abc; threshold_browser=id.mac; refresh=r1',
    'the SSO state, known-browser and refresh cookies, and nothing else (not the auth token, not another app\'s session, not the edge\'s own note of a browser)')
  t.same(response.headers['set-cookie'], ['sso_state=abc; Path=/accounts; HttpOnly; SameSite=Lax', 'other=1; Path=/'])

  await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_HEADERS, cookie: 'session=xyz; _ga=1' }, payload: '{}' })
  t.equal(upstream.requests[1]!.headers.cookie, undefined, 'no Cookie header when none of its cookies is there')
})

t.test('the cookie names the edge passes on are the ones the reference service reads', async (t) => {
  t.ok(ACCOUNTS_REQUEST_HEADERS.cookies.has(SSO_STATE_COOKIE), 'the SSO state cookie')
  t.ok(ACCOUNTS_REQUEST_HEADERS.cookies.has(BROWSER_COOKIE), 'the known-browser cookie')
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

t.test('attack: a hostile or huge Accept-Language reaches the accounts service as the locale the edge chose, never as sent', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { DEFAULT_LOCALE: 'fr' } })
  const cases: Array<[string, string]> = [
    [`ja;q=0.1, x-evil;q=1, ${'zz-'.repeat(5000)}a`, 'ja'],
    ['\u00ff<script>', 'fr'],
    ['de-CH,de;q=0.9', 'de']
  ]
  for (const [index, [sent, chosen]] of cases.entries()) {
    const response = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': 'application/json', 'accept-language': sent }, payload: '{}' })
    t.equal(response.statusCode, 200)
    t.equal(upstream.requests[index]!.headers['accept-language'], chosen, `${sent.slice(0, 30)} → ${chosen}`)
  }
  await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(upstream.requests[3]!.headers['accept-language'], 'fr', 'none sent: DEFAULT_LOCALE is stated')
})
