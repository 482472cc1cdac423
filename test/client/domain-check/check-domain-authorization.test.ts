import '../../fixtures/page/dom.js'
import t from 'tap'
import { checkDomainAuthorization } from '../../../client/domain-check/check-domain-authorization.js'
import { GRPC_STATUS, grpcStatusForHttpStatus, HTTP_STATUS_TO_GRPC_STATUS } from '../../../common/domain-check/grpc-status.js'
import { encodeFrame, encodeTrailers } from '../../../server/shared/domain-check/grpc-web-frames.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
// grpc-web's own HTTP-status path and the deadline are also held to the table
// in real Chromium (test/e2e/domain-check/domain-check-client.test.ts): happy-dom's
// XMLHttpRequest reports its states out of order, which that path depends on.
import { buildEdge, DEAD_UPSTREAM, listen, startUpstream } from '../../fixtures/servers/edge.js'
import { startEdgeAuthResponder } from '../../fixtures/domain-check/edge-auth.js'

async function pageBehindEdge (t: import('tap').Test, edgeAuthUpstream: string, env: Record<string, string> = {}): Promise<string> {
  const base = await listen(await buildEdge(t, { edgeAuthUpstream, env }))
  setPageUrl(`${base}/?supports_domain_auth_check=true`)
  return base
}

t.test('the check answers authorized, unauthorized or unspecified from the responder, through the edge', async (t) => {
  const responder = await startEdgeAuthResponder(t, { authorized: ['good.test', 'bücher.example'], unauthorized: ['bad.test'] })
  const origin = await pageBehindEdge(t, responder)
  const check = (domain: string) => checkDomainAuthorization(domain, { origin, timeoutMs: null })
  t.same(await check('good.test'), { kind: 'answered', authorization: 'authorized' })
  t.same(await check('GOOD.test.'), { kind: 'answered', authorization: 'authorized' }, 'case and a trailing dot do not matter')
  t.same(await check('bad.test'), { kind: 'answered', authorization: 'unauthorized' })
  t.same(await check('other.test'), { kind: 'answered', authorization: 'unspecified' })
  t.same(await check('xn--bcher-kva.example'), { kind: 'answered', authorization: 'authorized' }, 'internationalised names compare in punycode')
  t.same(await check(''), { kind: 'answered', authorization: 'unspecified' })
})

t.test('an answer with an enum value this page does not know is reported as unrecognised', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(0, Buffer.from([0x08, 0x05])), encodeTrailers(0)]))
  })
  const origin = await pageBehindEdge(t, upstream.url)
  t.same(await checkDomainAuthorization('x.test', { origin, timeoutMs: null }), { kind: 'answered', authorization: 'unrecognised' })
})

t.test('behind the edge, every HTTP failure reads as the table of docs/accounts-api.md ("The domain check") says, row by row', async (t) => {
  let status = 200
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' })
    response.end('the backend said no')
  })
  const origin = await pageBehindEdge(t, upstream.url)
  t.same(Object.keys(HTTP_STATUS_TO_GRPC_STATUS).map(Number), [400, 401, 403, 404, 409, 412, 429, 499, 501, 503, 504])
  for (const row of [...Object.keys(HTTP_STATUS_TO_GRPC_STATUS).map(Number), 500, 502, 418]) {
    status = row
    t.same(await checkDomainAuthorization('x.test', { origin, timeoutMs: null }), { kind: 'failed', code: grpcStatusForHttpStatus(row) },
      `HTTP ${row} → ${HTTP_STATUS_TO_GRPC_STATUS[row] ?? 'UNKNOWN'}`)
  }
  t.equal(grpcStatusForHttpStatus(418), GRPC_STATUS.UNKNOWN, 'anything else is UNKNOWN')
})

t.test('a configured timeout ends the call with DEADLINE_EXCEEDED at that time', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => {
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
      response.end(Buffer.concat([encodeFrame(0, Buffer.from([0x08, 0x01])), encodeTrailers(0)]))
    }, 600)
  })
  const origin = await pageBehindEdge(t, upstream.url)
  t.same(await checkDomainAuthorization('x.test', { origin, timeoutMs: null }), { kind: 'answered', authorization: 'authorized' }, 'without one, a slow answer is waited for')
  const started = Date.now()
  t.same(await checkDomainAuthorization('x.test', { origin, timeoutMs: 200 }), { kind: 'failed', code: GRPC_STATUS.DEADLINE_EXCEEDED })
  t.ok(Date.now() - started < 550, 'the call was cut short')
  t.match(upstream.requests.at(-1)!.headers['grpc-timeout'], /^\d+m$/, 'the deadline reaches the server as grpc-timeout')
})

t.test('a grpc-status in the trailers or the headers is the call\'s status', async (t) => {
  let mode: 'trailer' | 'headers' = 'trailer'
  const upstream = await startUpstream(t, (_request, response) => {
    if (mode === 'trailer') {
      response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
      response.end(encodeTrailers(GRPC_STATUS.PERMISSION_DENIED, 'no'))
    } else {
      response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'grpc-status': '16', 'grpc-message': 'who%20are%20you' })
      response.end()
    }
  })
  const origin = await pageBehindEdge(t, upstream.url)
  t.same(await checkDomainAuthorization('x.test', { origin, timeoutMs: null }), { kind: 'failed', code: GRPC_STATUS.PERMISSION_DENIED })
  mode = 'headers'
  t.same(await checkDomainAuthorization('x.test', { origin, timeoutMs: null }), { kind: 'failed', code: GRPC_STATUS.UNAUTHENTICATED })
})

t.test('a backend that is down is a failed check, UNAVAILABLE', async (t) => {
  const origin = await pageBehindEdge(t, DEAD_UPSTREAM)
  t.same(await checkDomainAuthorization('x.test', { origin, timeoutMs: null }), { kind: 'failed', code: GRPC_STATUS.UNAVAILABLE })
})

t.test('malformed answer frames are a failed check, not a crash', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.from('00000000ff0801', 'hex'))
  })
  const origin = await pageBehindEdge(t, upstream.url)
  const outcome = await checkDomainAuthorization('x.test', { origin, timeoutMs: null })
  t.equal(outcome.kind, 'failed')
})
