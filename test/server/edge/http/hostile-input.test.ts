import t, { type Test } from 'tap'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { CheckDomainAuthorizationRequest } from '../../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { encodeFrame, encodeTrailers } from '../../../../server/shared/domain-check/grpc-web-frames.js'
import { buildEdge, captureLog, jsonAnswer, listen, startUpstream, type Upstream, startEdgeWithUpstream } from '../../../fixtures/servers/edge.js'
import { openRaw, rawExchange, rawRequest, type RawExchange, type RawResponse } from '../../../fixtures/http/raw-http.js'
import { startReference } from '../../../fixtures/servers/reference.js'

/**
 * Hostile requests against the real edge over real sockets. Each case states
 * its safe outcome: refused with a clear status (never a 5xx), nothing passed
 * to the backend that should not be, nothing reflected, and the connection
 * closed where the request cannot be trusted.
 */

const JSON_POST = { 'Content-Type': 'application/json' }

async function edgeWithUpstream (t: Test, env: Record<string, string> = {}): Promise<{ base: string, upstream: Upstream }> {
  return await startEdgeWithUpstream(t, jsonAnswer(200, { auth: 'a', refresh: 'r' }), { accountsPath: '/base', domainCheckToo: true, env })
}

function only (t: Test, exchange: RawExchange, what: string): RawResponse {
  t.equal(exchange.responses.length, 1, `${what}: one response`)
  return exchange.responses[0] ?? { status: 0, headers: {}, body: Buffer.alloc(0) }
}

t.test('traversal and encoded slashes under /accounts never reach another backend path', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const targets = [
    '/accounts/../accounts/v2/login',
    '/accounts/./v2/login',
    '/accounts/v2/login/../../admin',
    '/accounts/v2/login/..%2F..%2Fadmin',
    '/accounts/v2%2Flogin',
    '/accounts/v2%2flogin',
    '/accounts/%2e%2e/readyz',
    '/accounts/%2E%2E%2Fhealthz',
    '/accounts/..%5C..%5Cadmin',
    '/accounts/v2/login%00',
    '/accounts/v2/login;.json',
    '/accounts//v2/login',
    '/accounts/v2//login',
    '/accounts/V2/LOGIN',
    '/accounts/'
  ]
  for (const target of targets) {
    const response = only(t, await rawExchange(base, rawRequest('POST', target, JSON_POST, '{}')), target)
    t.equal(response.status, 404, `${target}: 404`)
    t.same(JSON.parse(response.body.toString()), { error: 'Not found.' }, `${target}: the JSON not-found answer`)
  }
  t.equal(upstream.requests.length, 0, 'the backend was never called')

  // Percent-encoded letters decode to a listed path; the backend receives the
  // target as sent, under its base path, where it means the same thing.
  const encoded = only(t, await rawExchange(base, rawRequest('POST', '/accounts/v2/log%69n', JSON_POST, '{}')), 'encoded letters')
  t.equal(encoded.status, 200)
  t.equal(upstream.requests[0]?.url, '/base/v2/log%69n', 'forwarded under the base path')
})

t.test('traversal towards the server\'s own files finds nothing', async (t) => {
  const { base } = await edgeWithUpstream(t)
  const targets = [
    '/assets/../../package.json',
    '/assets/..%2f..%2fpackage.json',
    '/assets/%2e%2e/%2e%2e/server/main.js',
    '/assets/..%5c..%5cpackage.json',
    '/assets/.%2e/.%2e/package.json',
    '/..%2f..%2fetc%2fpasswd',
    '//etc/passwd',
    '/index.html',
    '/server/main.js',
    '/public/index.html',
    '/.env',
    '/.git/config'
  ]
  for (const target of targets) {
    const response = only(t, await rawExchange(base, rawRequest('GET', target)), target)
    t.equal(response.status, 404, `${target}: 404`)
    t.notMatch(response.body.toString(), /"name": "threshold"|import |root:|\[core\]/, `${target}: no file content`)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${target}: security headers`)
  }
})

t.test('methods other than POST on the proxied paths are refused without calling the backend, and nothing is echoed', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const secret = 'auth=session-secret-value'
  for (const method of ['HEAD', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE']) {
    const exchange = await rawExchange(base, rawRequest(method, '/accounts/v2/login', { Cookie: secret }))
    t.match(exchange.received, /^HTTP\/1\.1 40[45] /, `${method}: 404 or 405`)
    t.notMatch(exchange.received, /session-secret-value/, `${method}: the request is not echoed`)
  }
  const trace = await rawExchange(base, rawRequest('TRACE', '/', { Cookie: secret }))
  t.match(trace.received, /^HTTP\/1\.1 404 /, 'TRACE on the page: 404')
  t.notMatch(trace.received, /session-secret-value|message\/http/, 'TRACE echoes nothing')

  const preflight = only(t, await rawExchange(base, rawRequest('OPTIONS', '/accounts/v2/login', {
    Origin: 'https://evil.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type'
  })), 'a CORS preflight')
  t.equal(preflight.status, 405)
  t.notOk(Object.keys(preflight.headers).some((name) => name.startsWith('access-control-')), 'no CORS permission is granted')

  const unknown = await rawExchange(base, rawRequest('FOO', '/accounts/v2/login', JSON_POST, '{}'))
  t.match(unknown.received, /^HTTP\/1\.1 400 /, 'an unknown method is a bad request')
  t.ok(unknown.closedByServer, 'and the connection is closed')

  const connect = await rawExchange(base, 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n')
  t.ok(connect.closedByServer, 'CONNECT: the connection is closed')
  t.notMatch(connect.received, /^HTTP\/1\.1 200/, 'CONNECT: no tunnel')

  for (const method of ['PUT', 'DELETE', 'PATCH']) {
    const response = only(t, await rawExchange(base, rawRequest(method, '/', JSON_POST, '{}')), `${method} /`)
    t.equal(response.status, 404, `${method} on the page: 404, not the page`)
  }
  // POST / takes the page's forms posted without scripts (docs/no-script.md), and nothing else.
  const json = only(t, await rawExchange(base, rawRequest('POST', '/', JSON_POST, '{}')), 'POST / with JSON')
  t.equal(json.status, 415, 'POST / with JSON: refused as no form')
  t.equal(upstream.requests.length, 0, 'the backend was never called')
})

t.test('request smuggling: ambiguous framing is a 400 that closes the connection, and the smuggled request is never answered', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const smuggled = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'
  const head = 'POST /accounts/v2/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n'
  const cases: Array<[string, string]> = [
    ['Content-Length with Transfer-Encoding', `${head}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`],
    ['two different Content-Lengths', `${head}Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}${smuggled}`],
    ['a Content-Length list', `${head}Content-Length: 2, 2\r\n\r\n{}${smuggled}`],
    ['Transfer-Encoding not ending in chunked', `${head}Transfer-Encoding: chunked, identity\r\n\r\n2\r\n{}\r\n0\r\n\r\n${smuggled}`],
    ['an unknown Transfer-Encoding', `${head}Transfer-Encoding: xchunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n${smuggled}`],
    ['a Transfer-Encoding split over two lines', `${head}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n2\r\n{}\r\n0\r\n\r\n${smuggled}`],
    ['a chunk size that is not hexadecimal', `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n${smuggled}`],
    ['a space before the colon', `${head}Content-Length : 2\r\n\r\n{}${smuggled}`],
    ['an obsolete folded header', `${head}Content-Length: 2\r\nX-Folded: a\r\n b\r\n\r\n{}${smuggled}`],
    ['bare LF line ends', `${head.replace(/\r\n/g, '\n')}Content-Length: 2\n\n{}${smuggled}`],
    ['a negative Content-Length', `${head}Content-Length: -2\r\n\r\n{}${smuggled}`]
  ]
  for (const [what, bytes] of cases) {
    const exchange = await rawExchange(base, bytes)
    t.equal(exchange.responses.length, 1, `${what}: exactly one answer`)
    t.equal(exchange.responses[0]?.status, 400, `${what}: 400`)
    t.ok(exchange.closedByServer, `${what}: the connection is closed`)
  }
  t.equal(upstream.requests.length, 0, 'nothing reached the backend')
})

t.test('absolute-form request targets are answered for this server, never proxied elsewhere', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const elsewhere = await startUpstream(t, jsonAnswer(200, { stolen: true }))
  const page = only(t, await rawExchange(base, rawRequest('GET', 'http://evil.test/?view=register')), 'the page in absolute form')
  t.equal(page.status, 200, 'the page is served')
  t.match(page.body.toString(), /<div id="root">/)
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.body.toString())?.[1] ?? '/assets/missing.js'
  const asset = only(t, await rawExchange(base, rawRequest('GET', `https://evil.test${script}`)), 'an asset in absolute form')
  t.equal(asset.status, 200, 'the asset is served')
  t.equal(asset.headers['content-type'], 'text/javascript; charset=utf-8')

  const login = only(t, await rawExchange(base, rawRequest('POST', `${elsewhere.url}/accounts/v2/login`, JSON_POST, '{}')), 'a login in absolute form')
  t.ok(login.status === 200 || login.status === 400, `answered here (${login.status})`)
  t.equal(elsewhere.requests.length, 0, 'the host named in the target is never called')
  t.ok(upstream.requests.every((request) => request.url === '/base/v2/login'), 'only the configured backend, at the listed path')
})

t.test('a missing, repeated or malformed Host header is a 400 and is never passed on', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const login = (host: Array<[string, string]>) =>
    `POST /accounts/v2/login HTTP/1.1\r\n${host.map(([name, value]) => `${name}: ${value}\r\n`).join('')}Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`
  const cases: Array<[string, Array<[string, string]>]> = [
    ['no Host', []],
    ['an empty Host', [['Host', '']]],
    ['two Host headers', [['Host', 'signin.example.test'], ['Host', 'evil.test']]],
    ['a Host with a path', [['Host', 'evil.test/x']]],
    ['a Host with credentials', [['Host', 'user@evil.test']]],
    ['a Host with markup', [['Host', 'a<b>"c']]],
    ['a Host with a space', [['Host', 'evil.test signin.example.test']]],
    ['a Host with a bad port', [['Host', 'evil.test:http']]],
    ['an unclosed IPv6 literal', [['Host', '[::1']]],
    ['a Host that is not ASCII', [['Host', 'xn--e-\u00e9vil.test']]],
    ['a Host of 5,000 characters', [['Host', `${'a'.repeat(60)}.`.repeat(82)]]],
    ['a label longer than DNS allows', [['Host', `${'a'.repeat(64)}.example.test`]]],
    ['a port beyond 65535', [['Host', 'signin.example.test:99999']]]
  ]
  for (const [what, host] of cases) {
    const response = only(t, await rawExchange(base, login(host)), what)
    t.equal(response.status, 400, `${what}: 400`)
  }
  for (const [what, host] of cases.slice(1)) {
    const response = only(t, await rawExchange(base, rawRequest('GET', '/?view=register', host)), `${what} (page)`)
    t.equal(response.status, 400, `${what} on the page: 400`)
  }
  t.equal(upstream.requests.length, 0, 'no invalid host was forwarded as X-Forwarded-Host')

  const refused = only(t, await rawExchange(base, login([['Host', 'evil.test/x']])), 'the answer')
  t.same(JSON.parse(refused.body.toString()), { error: 'The Host header is not valid.' })
  t.equal(refused.headers['x-content-type-options'], 'nosniff')
  const grpc = only(t, await rawExchange(base, rawRequest('POST', CHECK_DOMAIN_AUTHORIZATION_PATH,
    { Host: 'evil.test/x', 'Content-Type': 'application/grpc-web+proto' }, 'x')), 'the domain check')
  t.equal(grpc.headers['grpc-status'], '3', 'the domain check answers in gRPC-web form (INVALID_ARGUMENT)')

  const stated: Array<[string, string]> = [
    ['signin.example.test', 'signin.example.test'],
    ['SignIn.Example.Test:8443', 'signin.example.test:8443'],
    ['signin.example.test.', 'signin.example.test'],
    ['127.0.0.1:8080', '127.0.0.1:8080'],
    ['[::1]:8080', '[::1]:8080'],
    ['[0:0:0:0:0:0:0:1]', '[::1]'],
    ['localhost', 'localhost'],
    ['threshold_edge:8080', 'threshold_edge:8080']
  ]
  for (const [host, canonical] of stated) {
    const response = only(t, await rawExchange(base, login([['Host', host]])), host)
    t.equal(response.status, 200, `${host} is fine`)
    t.equal(upstream.requests.at(-1)?.headers['x-forwarded-host'], canonical, `${host} is stated as ${canonical}`)
  }
  const http10 = await rawExchange(base, 'GET /healthz HTTP/1.0\r\n\r\n')
  t.match(http10.received, /^HTTP\/1\.1 200 /, 'HTTP/1.0 may omit the Host header')
})

t.test('behind a trusted proxy, a malformed X-Forwarded-Host is a 400 too', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t, { TRUST_PROXY: 'loopback' })
  const sent = (forwardedHost: string) => rawExchange(base, rawRequest('POST', '/accounts/v2/login', { ...JSON_POST, 'X-Forwarded-Host': forwardedHost }, '{}'))
  t.equal(only(t, await sent('evil.test/reset?x='), 'a path').status, 400)
  t.equal(only(t, await sent('a"><script>'), 'markup').status, 400)
  t.equal(upstream.requests.length, 0)
  t.equal(only(t, await sent('signin.example.com'), 'a host').status, 200)
  t.equal(upstream.requests[0]?.headers['x-forwarded-host'], 'signin.example.com')
})

t.test('spoofed forwarding headers change neither the client address, nor the origin check, nor what the backend is told', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t, { RATE_LIMIT_PER_MINUTE: '3' })
  const host = new URL(base).host
  const spoofed = (n: number) => ({
    ...JSON_POST,
    'X-Forwarded-For': `203.0.113.${n}`,
    'X-Real-IP': `203.0.113.${n}`,
    'True-Client-IP': `203.0.113.${n}`,
    Forwarded: `for=203.0.113.${n};host=evil.test;proto=https`,
    'X-Forwarded-Host': 'evil.test',
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Port': '443',
    'X-Original-URL': '/admin',
    'X-Rewrite-URL': '/admin'
  })

  const crossSite = only(t, await rawExchange(base, rawRequest('POST', '/accounts/v2/login',
    { Host: host, ...spoofed(1), Origin: 'https://evil.test' }, '{}')), 'a cross-site POST dressed as same-origin')
  t.equal(crossSite.status, 403, 'forwarded host and scheme do not make evil.test the page\'s origin')

  const statuses: number[] = []
  for (let n = 1; n <= 4; n++) {
    statuses.push(only(t, await rawExchange(base, rawRequest('POST', '/accounts/v2/login', { Host: host, ...spoofed(n) }, '{}')), `attempt ${n}`).status)
  }
  t.same(statuses, [200, 200, 200, 429], 'a new X-Forwarded-For on each attempt does not buy a new allowance')

  for (const request of upstream.requests) {
    t.equal(request.url, '/base/v2/login', 'X-Original-URL and X-Rewrite-URL change nothing')
    t.equal(request.headers['x-forwarded-for'], '127.0.0.1')
    t.equal(request.headers['x-forwarded-host'], host)
    t.equal(request.headers['x-forwarded-proto'], 'http')
    t.equal(request.headers['x-forwarded-port'], undefined)
    t.equal(request.headers.forwarded, undefined)
    t.equal(request.headers['x-real-ip'], undefined)
    t.equal(request.headers['true-client-ip'], undefined)
  }
})

t.test('hop-by-hop request headers are answered like any request, with nothing logged above info', async (t) => {
  const { lines, logger } = captureLog()
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'a', refresh: 'r' }))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, edgeAuthUpstream: upstream.url, logger, env: { ALLOWED_HOSTS: 'localhost' } })
  const base = await listen(app)
  const cases: Array<[string, Record<string, string>]> = [
    ['Keep-Alive', { 'Keep-Alive': 'timeout=5, max=1000' }],
    ['Upgrade', { Upgrade: 'h2c' }],
    ['Upgrade with Connection: Upgrade', { Connection: 'Upgrade', Upgrade: 'websocket' }],
    ['Expect: 100-continue', { Expect: '100-continue' }],
    ['TE', { TE: 'trailers, deflate' }],
    ['Proxy-Connection', { 'Proxy-Connection': 'keep-alive' }],
    ['Transfer-Encoding: chunked', { 'Transfer-Encoding': 'chunked' }]
  ]
  for (const [what, headers] of cases) {
    const body = headers['Transfer-Encoding'] === undefined ? '{}' : '2\r\n{}\r\n0\r\n\r\n'
    const exchange = await rawExchange(base, rawRequest('POST', '/accounts/v2/login', { ...JSON_POST, ...headers }, body))
    t.equal(exchange.responses.at(-1)?.status, 200, `${what}: answered`)
  }
  t.equal(upstream.requests.length, cases.length, 'each one reached the backend')
  t.ok(upstream.requests.every((request) => request.body.toString() === '{}'), 'with its body')
  t.same(lines.filter((line) => line.level >= 40), [], 'no warning and no error')
})

t.test('requests the client aborts leave no error line and no stack in the log', async (t) => {
  const { lines, logger } = captureLog()
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'a', refresh: 'r' }))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, edgeAuthUpstream: upstream.url, logger, env: { ALLOWED_HOSTS: 'localhost' } })
  const base = await listen(app)
  const head = 'POST /accounts/v2/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n'
  const aborts: Array<[string, string]> = [
    ['a body cut short', `${head}Content-Length: 100\r\n\r\n{"email":`],
    ['a whole request, reset at once', `${head}Content-Length: 2\r\n\r\n{}`],
    ['headers cut short', `${head}Content-Le`],
    ['a chunked body cut short', `${head}Transfer-Encoding: chunked\r\n\r\n10\r\n{"em`],
    ['a request waiting for 100-continue', `${head}Content-Length: 2\r\nExpect: 100-continue\r\n\r\n`],
    ['the domain check, reset at once', `POST ${CHECK_DOMAIN_AUTHORIZATION_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/grpc-web+proto\r\nContent-Length: 2\r\n\r\nxx`],
    ['the page, reset at once', 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n']
  ]
  const rounds = 5
  for (let round = 0; round < rounds; round++) {
    for (const [, bytes] of aborts) {
      const connection = await openRaw(base)
      connection.write(bytes)
      if (round % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 10))
      connection.socket.resetAndDestroy()
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1000))
  t.equal((await fetch(`${base}/healthz`)).status, 200, 'the edge still answers')
  const aborted = lines.filter((line) => !/^(Server listening|request completed)/.test(line.msg) || line.level >= 40)
  t.same(aborted.filter((line) => line.level >= 50), [], 'no error line')
  t.same(lines.filter((line) => line.err?.stack !== undefined), [], 'no stack')
  const perRequest = new Map<unknown, number>()
  for (const line of lines) if (line.reqId !== undefined) perRequest.set(line.reqId, (perRequest.get(line.reqId) ?? 0) + 1)
  t.ok([...perRequest.values()].every((count) => count === 1), 'at most one line per aborted request')
  t.ok(perRequest.size <= aborts.length * rounds + 1, `no more requests logged than were sent (${perRequest.size} of ${aborts.length * rounds})`)
  t.comment(`lines other than "request completed": ${JSON.stringify(aborted.map((line) => `${line.level} ${line.msg}`))}`)
})

t.test('cross-site POSTs in every disguise are refused before the backend is called', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const host = new URL(base).host
  const cases: Array<[string, Record<string, string>]> = [
    ['a look-alike origin', { Origin: `http://${host}.evil.test` }],
    ['the same host over another scheme', { Origin: `https://${host}` }],
    ['the same host on another port', { Origin: 'http://127.0.0.1:1' }],
    ['an origin with a path', { Origin: `http://${host}/` }],
    ['two origins', { Origin: `http://${host} https://evil.test` }],
    ['Sec-Fetch-Site cross-site with a matching Origin', { Origin: `http://${host}`, 'Sec-Fetch-Site': 'cross-site' }],
    ['Sec-Fetch-Site in upper case', { 'Sec-Fetch-Site': 'SAME-ORIGIN', Origin: 'https://evil.test' }],
    ['a text/plain form post', { 'Content-Type': 'text/plain', Origin: 'https://evil.test' }],
    ['a urlencoded form post', { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'cross-site' }],
    ['a multipart form post', { 'Content-Type': 'multipart/form-data; boundary=x', 'Sec-Fetch-Site': 'cross-site' }]
  ]
  for (const [what, headers] of cases) {
    const response = only(t, await rawExchange(base, rawRequest('POST', '/accounts/v2/login', { Host: host, ...JSON_POST, ...headers }, '{}')), what)
    t.equal(response.status, 403, `${what}: 403`)
  }
  const grpc = only(t, await rawExchange(base, rawRequest('POST', CHECK_DOMAIN_AUTHORIZATION_PATH,
    { Host: host, 'Content-Type': 'application/grpc-web+proto', Origin: 'https://evil.test' }, 'x')), 'the domain check')
  t.equal(grpc.status, 403)
  t.equal(grpc.headers['grpc-status'], '7', 'PERMISSION_DENIED')
  t.equal(upstream.requests.length, 0)
})

t.test('wrong content types are refused with 415; a charset or upper case is fine', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const refused = [
    'application/json-patch+json', 'application/jsonp', 'text/json', 'application/x-json', 'json',
    'application/json, text/plain', 'application/javascript', '*/*', 'application/*'
  ]
  for (const contentType of refused) {
    const response = only(t, await rawExchange(base, rawRequest('POST', '/accounts/v2/login', { 'Content-Type': contentType }, '{}')), contentType)
    t.equal(response.status, 415, `${contentType}: 415`)
  }
  t.equal(upstream.requests.length, 0)
  for (const contentType of ['APPLICATION/JSON', 'application/json;charset=UTF-8', 'application/json ; charset=utf-8']) {
    const response = only(t, await rawExchange(base, rawRequest('POST', '/accounts/v2/login', { 'Content-Type': contentType }, '{}')), contentType)
    t.equal(response.status, 200, `${contentType}: accepted`)
  }
})

t.test('deeply nested and prototype-polluting JSON is passed on byte for byte or refused, and the edge stays up', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const depth = 5000
  const bodies: Array<[string, string, number]> = [
    ['arrays nested 5000 deep', `${'['.repeat(depth)}${']'.repeat(depth)}`, 200],
    ['objects nested 1500 deep', `${'{"a":'.repeat(1500)}1${'}'.repeat(1500)}`, 200],
    ['unclosed nesting', '['.repeat(16_000), 400],
    ['__proto__ and constructor keys', '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"email":"a@b.test"}', 200]
  ]
  for (const [what, body, status] of bodies) {
    const response = only(t, await rawExchange(base, rawRequest('POST', '/accounts/v2/login', JSON_POST, body)), what)
    t.equal(response.status, status, `${what}: ${status}`)
    if (status === 200) t.equal(upstream.requests.at(-1)?.body.toString(), body, `${what}: the backend receives the exact bytes`)
  }
  t.equal(({} as Record<string, unknown>).admin, undefined, 'no prototype in this process was touched')
  t.equal((await fetch(`${base}/healthz`)).status, 200, 'the edge still answers')
})

t.test('hostile JSON reaches the reference accounts service, which refuses it with 400; nothing is polluted', async (t) => {
  const { base } = await startReference(t)
  const bodies: Array<[string, string]> = [
    ['__proto__ at the top', '{"__proto__":{"isAdmin":true},"email":"a@b.test","password":"correct horse battery staple"}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"isAdmin":true}},"email":"a@b.test","password":"correct horse battery staple"}'],
    ['__proto__ inside the context fields', '{"email":"a@b.test","password":"pw","insecure_allowed_orgs":{"__proto__":["x"]}}'],
    ['an email nested 3000 arrays deep', `{"email":${'['.repeat(3000)}"a@b.test"${']'.repeat(3000)},"password":"pw"}`],
    ['a password that is an object', '{"email":"a@b.test","password":{"toString":"x"}}']
  ]
  for (const [what, body] of bodies) {
    for (const path of ['/accounts/v2/login', '/accounts/register']) {
      const response = only(t, await rawExchange(base, rawRequest('POST', path, JSON_POST, body)), `${what} to ${path}`)
      t.equal(response.status, 400, `${what} to ${path}: 400`)
      t.type(JSON.parse(response.body.toString()).error, 'string', `${what} to ${path}: a readable error`)
    }
  }
  t.equal(({} as Record<string, unknown>).isAdmin, undefined, 'no prototype was touched')
  t.equal((await fetch(`${base}/healthz`)).status, 200, 'the edge still answers')
})

t.test('malformed gRPC-web frames through the edge get INVALID_ARGUMENT from the reference responder, and nothing is reflected', async (t) => {
  const { base } = await startReference(t)
  const frame = (domain: string) => encodeFrame(0, new CheckDomainAuthorizationRequest().setDomain(domain).serializeBinary())
  const binary = { 'Content-Type': 'application/grpc-web+proto', 'X-Grpc-Web': '1' }
  const text = { 'Content-Type': 'application/grpc-web-text', 'X-Grpc-Web': '1' }
  const cases: Array<[string, Record<string, string>, Buffer, string]> = [
    ['a truncated frame header', binary, Buffer.from('0000', 'hex'), '3'],
    ['a frame claiming 4 GiB', binary, Buffer.from('00ffffffff0a0b', 'hex'), '3'],
    ['a frame longer than the body', binary, Buffer.from('00000000ff0a', 'hex'), '3'],
    ['two request messages', binary, Buffer.concat([frame('a.test'), frame('b.test')]), '3'],
    ['a message that is not protobuf', binary, encodeFrame(0, Buffer.from('ffffffffffff', 'hex')), '3'],
    ['only a trailer frame', binary, encodeTrailers(0), '3'],
    ['an empty body', binary, Buffer.alloc(0), '3'],
    ['a compressed message', binary, encodeFrame(1, Buffer.from('0a00', 'hex')), '12'],
    ['text that is not base64', text, Buffer.from('<script>alert(1)</script>'), '3'],
    ['text that is raw binary', text, Buffer.from('00000000ff0a', 'hex'), '3']
  ]
  for (const [what, headers, payload, grpcStatus] of cases) {
    const response = only(t, await rawExchange(base, rawRequest('POST', CHECK_DOMAIN_AUTHORIZATION_PATH, headers, payload.toString('latin1'))), what)
    t.equal(response.status, 200, `${what}: a gRPC answer`)
    t.equal(response.headers['grpc-status'], grpcStatus, `${what}: grpc-status ${grpcStatus}`)
    t.notMatch(response.body.toString('latin1'), /script|Error|at /, `${what}: nothing reflected`)
  }

  // A valid frame sent in pieces, its header split across chunks, is one call.
  const connection = await openRaw(base)
  const whole = frame('example.com')
  connection.write(`POST ${CHECK_DOMAIN_AUTHORIZATION_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/grpc-web+proto\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`)
  for (const piece of [whole.subarray(0, 3), whole.subarray(3, 7), whole.subarray(7)]) {
    connection.write(`${piece.length.toString(16)}\r\n`)
    connection.write(piece)
    connection.write('\r\n')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  connection.write('0\r\n\r\n')
  const split = only(t, await connection.finish(3000), 'a frame in pieces')
  t.equal(split.status, 200)
  t.equal(split.headers['grpc-status'], undefined, 'no failure status in the headers')
  t.match(split.body.toString('latin1'), /grpc-status:0/, 'OK in the trailer frame')
})

t.test('a body announced as huge is refused with 413 at once, without being read', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const exchange = await rawExchange(base, rawRequest('POST', '/accounts/v2/login', { ...JSON_POST, 'Content-Length': String(10 * 1024 ** 3) }, '{"a":'), 5000)
  t.equal(exchange.responses[0]?.status, 413)
  t.ok(exchange.closedByServer, 'the connection is closed rather than read for 10 GiB')
  t.equal(upstream.requests.length, 0)
})

t.test('headers and request lines that are too large are refused with 431 and the connection closed', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t)
  const hugeUrl = await rawExchange(base, rawRequest('GET', `/?error=${'x'.repeat(20_000)}`))
  t.match(hugeUrl.received, /^HTTP\/1\.1 431 /, 'a 20 kB query string')
  t.ok(hugeUrl.closedByServer)
  const hugeHeader = await rawExchange(base, rawRequest('POST', '/accounts/v2/login', { ...JSON_POST, Cookie: 'a'.repeat(20_000) }, '{}'))
  t.match(hugeHeader.received, /^HTTP\/1\.1 431 /, 'a 20 kB cookie')
  const manyHeaders = await rawExchange(base, rawRequest('POST', '/accounts/v2/login',
    [['Content-Type', 'application/json'], ...Array.from({ length: 3000 }, (_, n): [string, string] => [`X-H${n}`, 'v'])], '{}'))
  t.match(manyHeaders.received, /^HTTP\/1\.1 (431|200) /, '3000 headers: refused, or the extra ones ignored')
  t.equal((await fetch(`${base}/healthz`)).status, 200, 'the edge still answers')
  t.ok(upstream.requests.length <= 1)
})

t.test('hostile query values are inert in the rendered page, and leave its CSP as it is', async (t) => {
  const { base } = await edgeWithUpstream(t)
  const withoutNonce = (text: string) => text.replace(/nonce-[A-Za-z0-9+/=]+|nonce="[A-Za-z0-9+/=]+"/g, 'nonce')
  const plain = await fetch(`${base}/`)
  const plainHtml = withoutNonce(await plain.text())
  const plainCsp = withoutNonce(plain.headers.get('content-security-policy') ?? '')
  const hostile = '"><script>alert(1)</script>\u202e\u0000__proto__'
  const names = ['view', 'redirect', 'allowed_org', 'resource_type', 'cluster_name', 'home_page_banner', 'error', 'login_method',
    'local_accounts_host', 'local_accounts_port', 'supports_domain_auth_check', 'saml', 'oidc', 'email', 'id', 'login', 'register', 'token', '__proto__']
  const query = new URLSearchParams(names.flatMap((name) => [[name, hostile], [name, 'x'.repeat(200)]])).toString()
  const page = await fetch(`${base}/?${query}`)
  t.equal(page.status, 200)
  // The view is rendered on the server (docs/page.md): the texts it shows are text, and the links carry the query percent-encoded.
  const html = withoutNonce(await page.text())
  const harmlessQuery = new URLSearchParams(names.flatMap((name) => [[name, 'harmless'], [name, 'x'.repeat(200)]])).toString()
  const harmlessHtml = withoutNonce(await (await fetch(`${base}/?${harmlessQuery}`)).text())
  const tags = (text: string, tag: string) => text.split(`<${tag}`).length - 1
  for (const tag of ['script', 'img', 'iframe', 'form', 'a ', 'input']) t.equal(tags(html, tag), tags(harmlessHtml, tag), `no <${tag} added`)
  t.equal(tags(html, 'script'), tags(plainHtml, 'script'), 'the page\'s own scripts only')
  // An SSO return's email prefills the email field as it came (the service judges it): only there, as an escaped value.
  const outsideValues = html.replace(/ value="[^"]*"/g, '')
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
  const leaked = /.{0,80}(<script>alert|"><script|\u0000|\u202e).{0,40}/s.exec(outsideValues)?.[0]
  t.equal(leaked, undefined, 'no markup, and no control or bidi character, from the query')
  t.notMatch(html, /value="[^"]*"><script/, 'a value cannot close its attribute')
  t.match(html, '<h1 class="card__title">Log in</h1>', 'an unknown view is the login view')
  t.equal(withoutNonce(page.headers.get('content-security-policy') ?? ''), plainCsp, 'the same CSP')
  for (const host of ['evil.test', 'localhost;script-src *', '127.0.0.1 https://evil.test', 'localhost%0d%0aSet-Cookie:a=b']) {
    const response = await fetch(`${base}/?local_accounts_host=${encodeURIComponent(host)}&local_accounts_port=1`)
    t.notMatch(response.headers.get('content-security-policy'), /evil|script-src \*|Set-Cookie/i, `${host}: nothing of it in the CSP`)
    t.equal(response.headers.get('set-cookie'), null)
  }
})

t.test('a URL the router cannot decode is a 400 with the security headers, reflecting nothing', async (t) => {
  const { base } = await edgeWithUpstream(t)
  const cases: Array<[string, number]> = [
    ['/assets/%c0%ae%c0%ae/x"<svg/onload=alert(1)>', 400],
    ['/accounts/%E0%A4%A', 400],
    ['/edgeauth.v1.EdgeAuthMetadataService/%ff', 400],
    [`/assets/${'a'.repeat(300)}`, 404]
  ]
  for (const [target, status] of cases) {
    const what = target.slice(0, 40)
    const response = only(t, await rawExchange(base, rawRequest('GET', target)), what)
    t.equal(response.status, status, `${what}: ${status}`)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`)
    t.match(response.headers['content-security-policy'], /default-src 'none'/, `${what}: CSP`)
    t.equal(response.headers['cache-control'], 'no-store', `${what}: no-store`)
    t.notMatch(response.body.toString(), /svg|%c0|%E0|%ff|aaaa/i, `${what}: the address is not reflected`)
  }
  const badUrl = only(t, await rawExchange(base, rawRequest('GET', '/assets/%c0')), '/assets/%c0')
  t.same(JSON.parse(badUrl.body.toString()), { error: 'The address is not valid.' })
})

t.test('slow headers: the connection is closed by the headers timeout, and others are served meanwhile', async (t) => {
  const app = await buildEdge(t, { timeouts: { headersMs: 400, requestMs: 800, keepAliveMs: 2000 } })
  const base = await listen(app)
  const slowlorises = await Promise.all(Array.from({ length: 50 }, () => openRaw(base)))
  const drip = setInterval(() => {
    for (const connection of slowlorises) connection.write(`X-Drip-${Math.random().toString(36).slice(2)}: 1\r\n`)
  }, 100)
  for (const connection of slowlorises) connection.write('GET / HTTP/1.1\r\nHost: localhost\r\n')
  t.teardown(() => clearInterval(drip))

  const servedMeanwhile = await fetch(`${base}/healthz`)
  t.equal(servedMeanwhile.status, 200, 'a normal request is served while 50 connections drip headers')
  const exchanges = await Promise.all(slowlorises.map((connection) => connection.finish(10_000)))
  clearInterval(drip)
  t.ok(exchanges.every((exchange) => exchange.closedByServer), 'every dripping connection was closed (bound: 10 s for a 0.4 s limit)')
  t.ok(exchanges.every((exchange) => /^HTTP\/1\.1 408 /.test(exchange.received) || exchange.received === ''), 'with 408 Request Timeout, or nothing')
  t.comment(`closed after ${Math.min(...exchanges.map((e) => e.elapsedMs))}–${Math.max(...exchanges.map((e) => e.elapsedMs))} ms (limit 400 ms)`)
})

t.test('a slowly sent body: the connection is closed by the request timeout, and the backend is not called', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, timeouts: { headersMs: 400, requestMs: 800, keepAliveMs: 2000 } })
  const base = await listen(app)
  const connection = await openRaw(base)
  connection.write('POST /accounts/v2/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":"')
  const drip = setInterval(() => connection.write('x'), 50)
  t.teardown(() => clearInterval(drip))
  const exchange = await connection.finish(10_000)
  clearInterval(drip)
  t.ok(exchange.closedByServer, 'closed (bound: 10 s for a 0.8 s limit)')
  t.match(exchange.received, /^(HTTP\/1\.1 408 |$)/, '408 Request Timeout, or nothing')
  t.comment(`closed after ${exchange.elapsedMs} ms (limit 800 ms)`)
  t.equal(upstream.requests.length, 0)
})

t.test('an idle keep-alive connection is closed by the keep-alive timeout', async (t) => {
  const app = await buildEdge(t, { timeouts: { headersMs: 400, requestMs: 800, keepAliveMs: 500 } })
  const base = await listen(app)
  const exchange = await rawExchange(base, rawRequest('GET', '/healthz', { Connection: 'keep-alive' }), 10_000)
  t.equal(exchange.responses[0]?.status, 200)
  t.ok(exchange.closedByServer, 'closed by the server')
  t.comment(`closed after ${exchange.elapsedMs} ms (keep-alive 500 ms)`)
})
