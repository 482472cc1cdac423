import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { failureKindOf, failureKindOfStatus } from '../../../../server/edge/upstream/upstream-failures.js'
import { buildEdge, captureLog, DEAD_UPSTREAM, jsonAnswer, listen, startUpstream, type LogLine, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { makeKeyAndCertificate, opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/**
 * Every failed call to a backend leaves one log line naming the upstream,
 * the kind (the metric's label values), the status where there is one and
 * the elapsed time; a backend's 5xx that the page receives as it was sent is
 * such a line too, not only an ordinary request line.
 */

type Handler = (request: RecordedRequest, response: ServerResponse) => void

const ENV = { UPSTREAM_TIMEOUT_MS: '500', RATE_LIMIT_PER_MINUTE: '100000', ALLOWED_HOSTS: '127.0.0.1' }
const FAILURE_MESSAGES = new Set(['upstream call failed', 'upstream answer unreadable', 'upstream server error'])

async function edgeAt (t: Test, accounts: string, edgeAuth = DEAD_UPSTREAM): Promise<{ base: string, lines: LogLine[] }> {
  const { lines, logger } = captureLog()
  const app = await buildEdge(t, { accountsUpstream: accounts, edgeAuthUpstream: edgeAuth, logger, env: ENV })
  return { base: await listen(app), lines }
}

async function edgeFor (t: Test, handler: Handler) {
  return edgeAt(t, (await startUpstream(t, handler)).url)
}

/** A login with any credentials, with the address in the query too (which no log may name). */
async function login (base: string): Promise<{ status: number, body: string }> {
  const answer = await postLogin(base, 'a@b.test', 'hunter2', { query: '?email=a@b.test' })
  return { status: answer.status, body: answer.text }
}

const failureLines = (lines: LogLine[]): LogLine[] => lines.filter((line) => FAILURE_MESSAGES.has(line.msg))

function expectOneFailure (t: Test, lines: LogLine[], expected: Record<string, unknown>): void {
  const failures = failureLines(lines)
  t.equal(failures.length, 1, 'one failure line')
  t.match(failures[0], { upstream: 'accounts', elapsedMs: Number, ...expected })
  t.notMatch(JSON.stringify(lines), /hunter2|a@b\.test/, 'neither the password nor the query string is logged')
}

t.test('a JSON 500 that the page receives as sent is logged as the backend\'s server error', async (t) => {
  const { base, lines } = await edgeFor(t, jsonAnswer(500, { error: 'Something broke on our side.' }))
  const outcome = await login(base)
  t.same([outcome.status, JSON.parse(outcome.body)], [500, { error: 'Something broke on our side.' }], 'passed on')
  expectOneFailure(t, lines, { level: 40, msg: 'upstream server error', kind: 'server_error', status: 500, passedOn: true })
})

t.test('a JSON 4xx is the backend\'s answer, not a failure', async (t) => {
  const { base, lines } = await edgeFor(t, jsonAnswer(401, { error: 'Wrong password.' }))
  t.equal((await login(base)).status, 401)
  t.same(failureLines(lines), [])
})

t.test('an HTML 503 from a gateway in front of the backend is a server error, with its status', async (t) => {
  const { base, lines } = await edgeFor(t, (_request, response) => {
    response.writeHead(503, { 'content-type': 'text/html' })
    response.end('<html>down</html>')
  })
  t.equal((await login(base)).status, 503)
  expectOneFailure(t, lines, { level: 40, msg: 'upstream server error', kind: 'server_error', status: 503, reason: 'not JSON' })
})

t.test('an HTML 200 is unreadable', async (t) => {
  const { base, lines } = await edgeFor(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<html>a login page</html>')
  })
  t.equal((await login(base)).status, 502)
  expectOneFailure(t, lines, { level: 40, msg: 'upstream answer unreadable', kind: 'unreadable', status: 200 })
})

t.test('a refused connection is logged as refused', async (t) => {
  const { base, lines } = await edgeAt(t, DEAD_UPSTREAM)
  t.equal((await login(base)).status, 503)
  expectOneFailure(t, lines, { level: 40, msg: 'upstream call failed', kind: 'refused', failure: 'unavailable' })
  t.notOk('status' in failureLines(lines)[0]!, 'no status: there was no answer')
})

t.test('a connection closed without an answer is logged as reset', async (t) => {
  const { base, lines } = await edgeFor(t, (_request, response) => { response.socket?.destroy() })
  t.equal((await login(base)).status, 502)
  expectOneFailure(t, lines, { level: 40, msg: 'upstream call failed', kind: 'reset' })
})

t.test('a backend past UPSTREAM_TIMEOUT_MS is logged as a timeout, with the time it was given', async (t) => {
  const { base, lines } = await edgeFor(t, () => { /* never answers */ })
  t.equal((await login(base)).status, 504)
  expectOneFailure(t, lines, { level: 40, msg: 'upstream call failed', kind: 'timeout' })
  const elapsed = failureLines(lines)[0]!.elapsedMs as number
  t.ok(elapsed >= 450 && elapsed < 2_000, `the elapsed time is the call's (${elapsed} ms)`)
})

t.test('a backend whose certificate does not verify is an error line (refused, reason tls)', { skip: opensslSkip }, async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-upstream-tls-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const { privateKey, certificate } = makeKeyAndCertificate(folder, '127.0.0.1')
  const server = createHttpsServer({ key: privateKey, cert: certificate }, (_request, response) => response.end('{}'))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  const { base, lines } = await edgeAt(t, `https://127.0.0.1:${(server.address() as AddressInfo).port}`)
  t.equal((await login(base)).status, 502)
  expectOneFailure(t, lines, { level: 50, msg: 'upstream call failed', kind: 'refused', reason: 'tls' })
})

t.test('the domain-check service\'s 5xx is logged too, whether passed on in gRPC-web form or not', async (t) => {
  const grpcHeaders = { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' }
  const request = Buffer.from('000000000d0a0b6578616d706c652e636f6d', 'hex')
  for (const [contentType, expected] of [
    ['text/html', { reason: 'not gRPC-web' }],
    ['application/grpc-web+proto', { passedOn: true }]
  ] as const) {
    const upstream = await startUpstream(t, (_request, response) => {
      response.writeHead(500, { 'content-type': contentType, 'grpc-status': '13' })
      response.end()
    })
    const { base, lines } = await edgeAt(t, DEAD_UPSTREAM, upstream.url)
    const response = await fetch(`${base}${CHECK_DOMAIN_AUTHORIZATION_PATH}`, { method: 'POST', headers: grpcHeaders, body: request })
    t.equal(response.status, 500, `${contentType}: the status stands`)
    const failures = failureLines(lines)
    t.equal(failures.length, 1, `${contentType}: one failure line`)
    t.match(failures[0], { level: 40, msg: 'upstream server error', upstream: 'edge-auth', kind: 'server_error', status: 500, elapsedMs: Number, ...expected })
  }
})

t.test('kinds: errors by code, answers by status', async (t) => {
  const coded = (code: string, cause?: unknown) => Object.assign(new Error('x', { cause }), { code })
  t.equal(failureKindOf(coded('FST_REPLY_FROM_INTERNAL_SERVER_ERROR', coded('ECONNREFUSED'))), 'refused', 'a wrapped cause counts')
  t.equal(failureKindOf(coded('ENOTFOUND')), 'refused')
  t.equal(failureKindOf(coded('DEPTH_ZERO_SELF_SIGNED_CERT')), 'refused')
  t.equal(failureKindOf(coded('ECONNRESET')), 'reset')
  t.equal(failureKindOf(coded('UND_ERR_SOCKET')), 'reset')
  t.equal(failureKindOf(coded('UND_ERR_HEADERS_TIMEOUT')), 'timeout')
  t.equal(failureKindOf(coded('HPE_INVALID_CONSTANT')), 'unreadable', 'not HTTP')
  t.equal(failureKindOf(coded('FST_REPLY_FROM_BAD_GATEWAY')), 'unreadable', 'a status HTTP does not have')
  t.equal(failureKindOfStatus(500), 'server_error')
  t.equal(failureKindOfStatus(599), 'server_error')
  t.equal(failureKindOfStatus(302), 'unreadable')
  t.equal(failureKindOfStatus(404), 'unreadable')
})
