import type { ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { buildEdge, DEAD_UPSTREAM, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'

const GRPC_HEADERS = { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' }
/** A request frame for domain "example.com", and an answer with a data frame and a trailer frame. */
const REQUEST = Buffer.from('000000000d0a0b6578616d706c652e636f6d', 'hex')
const ANSWER = Buffer.concat([
  Buffer.from('00000000020801', 'hex'),
  Buffer.from('80000000', 'hex'), Buffer.from([31]), Buffer.from('grpc-status:0\r\ngrpc-message:\r\n')
])

t.test('the domain check is proxied byte for byte, answer frames and trailers included', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'x-upstream-secret': 'internal' })
    response.end(ANSWER)
  })
  const app = await buildEdge(t, { edgeAuthUpstream: upstream.url })
  const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: GRPC_HEADERS, payload: REQUEST })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'application/grpc-web+proto')
  t.ok(response.rawPayload.equals(ANSWER), 'the answer bytes are untouched')
  t.equal(response.headers['x-upstream-secret'], undefined, 'backend headers outside the gRPC-web set are dropped')
  t.equal(upstream.requests[0]!.url, CHECK_DOMAIN_AUTHORIZATION_PATH)
  t.ok(upstream.requests[0]!.body.equals(REQUEST), 'the request bytes are untouched')
})

t.test('the domain-check service receives the gRPC-web headers alone: no cookie, no credentials, no client claims, no query', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(ANSWER)
  })
  const app = await buildEdge(t, { edgeAuthUpstream: upstream.url, env: { TRUST_PROXY: 'loopback' } })
  const response = await app.inject({
    method: 'POST',
    url: `${CHECK_DOMAIN_AUTHORIZATION_PATH}?email=victim%40example.test&token=secret`,
    headers: {
      ...GRPC_HEADERS,
      accept: 'application/grpc-web+proto',
      'x-user-agent': 'grpc-web-javascript/0.1',
      'grpc-timeout': '5000m',
      'user-agent': 'Mozilla/5.0',
      cookie: 'auth=eyJ.auth.token; refresh=r1; sso_state=s; threshold_browser=b; threshold_edge_browser=1:tag',
      authorization: 'Bearer google.id.token',
      'proxy-authorization': 'Basic c3RvbGVu',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-host': 'signin.example.test',
      'x-original-url': '/admin',
      'x-http-method-override': 'GET',
      'accept-encoding': 'gzip',
      'x-request-id': 'lb-id-1'
    },
    payload: REQUEST
  })
  t.equal(response.statusCode, 200)
  const seen = upstream.requests[0]!
  t.equal(seen.url, CHECK_DOMAIN_AUTHORIZATION_PATH, 'the query string stays at the edge')
  t.same(Object.keys(seen.headers).sort(), [
    'accept', 'accept-encoding', 'accept-language', 'connection', 'content-length', 'content-type', 'grpc-timeout', 'host', 'x-grpc-web', 'x-request-id', 'x-user-agent'
  ], 'the gRPC-web headers, the request id and the chosen language, nothing else')
  t.equal(seen.headers['accept-language'], 'en', 'the language the edge chose, stated even when the browser sent none')
  t.equal(seen.headers['accept-encoding'], 'identity', 'the edge\'s own Accept-Encoding, not the browser\'s')
  t.equal(seen.headers['grpc-timeout'], '5000m', 'the page\'s deadline travels on')
  t.equal(seen.headers['x-request-id'], 'lb-id-1', 'the load balancer\'s request id, from a trusted proxy')
})

t.test('wrong content types, oversized bodies, cross-site calls and other methods are refused', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => response.end(ANSWER))
  const app = await buildEdge(t, { edgeAuthUpstream: upstream.url })
  const call = (headers: Record<string, string>, payload: Buffer = REQUEST) =>
    app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers, payload })
  const expectations: Array<[Promise<import('fastify').LightMyRequestResponse>, number, string, string]> = [
    [call({ 'content-type': 'application/json' }), 415, '2', 'JSON'],
    [call({ 'content-type': 'application/grpc' }), 415, '2', 'native gRPC is not gRPC-web'],
    [call(GRPC_HEADERS, Buffer.alloc(16 * 1024 + 1)), 413, '2', 'an oversized body'],
    [call({ ...GRPC_HEADERS, 'sec-fetch-site': 'cross-site' }), 403, '7', 'a cross-site call (PERMISSION_DENIED)'],
    [app.inject({ method: 'GET', url: CHECK_DOMAIN_AUTHORIZATION_PATH }), 405, '2', 'GET']
  ]
  for (const [pending, status, grpcStatus, what] of expectations) {
    const response = await pending
    t.equal(response.statusCode, status, `${what}: HTTP ${status}`)
    t.equal(response.headers['content-type'], 'application/grpc-web+proto', `${what}: answered in gRPC-web form`)
    t.equal(response.headers['grpc-status'], grpcStatus, `${what}: grpc-status ${grpcStatus}`)
  }
  t.equal(upstream.requests.length, 0)
})

t.test('a backend that is down gives a gRPC-web UNAVAILABLE status', async (t) => {
  const app = await buildEdge(t, { edgeAuthUpstream: DEAD_UPSTREAM })
  const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: GRPC_HEADERS, payload: REQUEST })
  t.equal(response.statusCode, 503)
  t.equal(response.headers['content-type'], 'application/grpc-web+proto')
  t.equal(response.headers['grpc-status'], '14')
  t.match(decodeURIComponent(String(response.headers['grpc-message'])), /unavailable/)
  t.notMatch(response.body + String(response.headers['grpc-message']), /127\.0\.0\.1/)
})

t.test('a backend that hangs gives DEADLINE_EXCEEDED', async (t) => {
  const upstream = await startUpstream(t, () => {})
  const app = await buildEdge(t, { edgeAuthUpstream: upstream.url, env: { UPSTREAM_TIMEOUT_MS: '200' } })
  const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: GRPC_HEADERS, payload: REQUEST })
  t.equal(response.statusCode, 504)
  t.equal(response.headers['grpc-status'], '4')
})

t.test('a backend failing with a page that is not gRPC-web is turned into a gRPC-web failure with the same status', async (t) => {
  let status = 503
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html', 'content-length': '23' })
    response.end('<h1>Service down</h1>\n\n')
  })
  const app = await buildEdge(t, { edgeAuthUpstream: upstream.url })
  for (const [httpStatus, grpcStatus] of [[503, '14'], [429, '8'], [401, '16'], [500, '2']] as const) {
    status = httpStatus
    const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: GRPC_HEADERS, payload: REQUEST })
    t.equal(response.statusCode, httpStatus)
    t.equal(response.headers['content-type'], 'application/grpc-web+proto')
    t.equal(response.headers['grpc-status'], grpcStatus, `HTTP ${httpStatus} → grpc-status ${grpcStatus}`)
    t.equal(response.body, '', 'the backend\'s page is not passed on')
  }
})

t.test('an answer coded although identity was asked for reaches the page decoded; one that cannot be decoded is UNAVAILABLE', async (t) => {
  let answer = (_request: RecordedRequest, response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'content-encoding': 'gzip' })
    response.end(gzipSync(ANSWER))
  }
  const upstream = await startUpstream(t, (request, response) => answer(request, response))
  const app = await buildEdge(t, { edgeAuthUpstream: upstream.url })
  const call = async () => app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: GRPC_HEADERS, payload: REQUEST })

  const decoded = await call()
  t.equal(decoded.statusCode, 200)
  t.ok(decoded.rawPayload.equals(ANSWER), 'the frames, decoded')
  t.equal(decoded.headers['content-length'], String(ANSWER.length), 'with their own length')
  t.equal(decoded.headers['content-encoding'], undefined)

  const refusals: Array<[string, Buffer]> = [['zstd', ANSWER], ['br', Buffer.from('not brotli')], ['gzip', gzipSync(Buffer.alloc(64 * 1024 * 1024))]]
  for (const [coding, body] of refusals) {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'content-encoding': coding })
      response.end(body)
    }
    const refused = await call()
    t.equal(refused.statusCode, 503, `${coding}: 503`)
    t.equal(refused.headers['grpc-status'], '14', `${coding}: UNAVAILABLE`)
    t.equal(refused.rawPayload.length, 0, `${coding}: nothing of the answer`)
  }
})

t.test('attack: a hostile or huge Accept-Language reaches the domain check as the locale the edge chose', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(ANSWER)
  })
  const app = await buildEdge(t, { edgeAuthUpstream: upstream.url })
  for (const [index, [sent, chosen]] of ([[`x-evil, ${'a'.repeat(16000)}`, 'en'], ['de-CH,de;q=0.9', 'de']] as const).entries()) {
    const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: { ...GRPC_HEADERS, 'accept-language': sent }, payload: REQUEST })
    t.equal(response.statusCode, 200)
    t.equal(upstream.requests[index]!.headers['accept-language'], chosen, `${sent.slice(0, 20)} → ${chosen}`)
  }
})
