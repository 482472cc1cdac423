import Fastify from 'fastify'
import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createUpstreamProbes, PROBE_TIMEOUT_MS, type ProbeResult } from '../../../../server/edge/upstream/upstream-probes.js'
import { buildEdge, captureLog, DEAD_UPSTREAM, jsonAnswer, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { makeKeyAndCertificate, opensslSkip } from '../../../fixtures/sso/sso-certificates.js'

/** An edge with its own backends: both services at `accounts` and `edgeAuth`, probed at their base URLs unless `env` says otherwise. */
function edgeWithBackends (t: Test, accounts: string, edgeAuth: string, env: Record<string, string> = {}) {
  return buildEdge(t, {
    env: { ACCOUNTS_URL: accounts, EDGE_AUTH_URL: edgeAuth, ...env },
    accountsUpstream: accounts,
    edgeAuthUpstream: edgeAuth
  })
}

const answering = (status: number, headers: Record<string, string> = {}) => (_request: RecordedRequest, response: ServerResponse): void => {
  response.writeHead(status, { 'content-type': 'text/plain', ...headers })
  response.end('not the page\'s business')
}

async function readyz (app: Awaited<ReturnType<typeof buildEdge>>) {
  const response = await app.inject({ url: '/readyz' })
  return { status: response.statusCode, body: response.json<{ status: string, upstreams: Record<string, { state: string, reason?: string }> }>(), raw: response.body }
}

/** An HTTPS server with a self-signed certificate, which no verifying client trusts. */
async function selfSignedServer (t: Test): Promise<{ url: string, reached: () => boolean }> {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-readiness-tls-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const { privateKey, certificate } = makeKeyAndCertificate(folder, '127.0.0.1')
  let reached = false
  const server = createHttpsServer({ key: privateKey, cert: certificate }, (_request, response) => {
    reached = true
    response.end('ok')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, reached: () => reached }
}

t.test('/healthz answers while the process runs', async (t) => {
  const app = await buildEdge(t)
  const response = await app.inject({ url: '/healthz' })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { status: 'ok' })
})

t.test('own backends that answer below 500 are up: one GET each, at the base URL, and /readyz is 200', async (t) => {
  const accounts = await startUpstream(t, answering(404))
  const edgeAuth = await startUpstream(t, jsonAnswer(200, {}))
  const app = await edgeWithBackends(t, `${accounts.url}/api`, edgeAuth.url)
  const { status, body } = await readyz(app)
  t.equal(status, 200)
  t.same(body, { status: 'ready', upstreams: { accounts: { state: 'up' }, edgeAuth: { state: 'up' } } })
  t.match(accounts.requests, [{ method: 'GET', url: '/api' }], 'an HTTP request, not only a connection: a 404 is an answer')
  t.equal(accounts.requests.length, 1)
  t.match(edgeAuth.requests, [{ method: 'GET', url: '/' }])
  t.match(accounts.requests[0]!.headers, { 'user-agent': 'threshold-readiness-probe', connection: 'close' }, 'the probe names itself, on a fresh connection')
})

t.test('ACCOUNTS_HEALTH_URL and EDGE_AUTH_HEALTH_URL replace what is requested', async (t) => {
  const backend = await startUpstream(t, answering(204))
  const health = await startUpstream(t, answering(200))
  const app = await edgeWithBackends(t, backend.url, backend.url, {
    ACCOUNTS_HEALTH_URL: `${health.url}/accounts/health`,
    EDGE_AUTH_HEALTH_URL: `${health.url}/grpc/health`
  })
  t.equal((await readyz(app)).status, 200)
  t.same(backend.requests, [], 'the base URL is not asked')
  t.same(health.requests.map((request) => request.url).sort(), ['/accounts/health', '/grpc/health'])
})

t.test('a backend that refuses connections is down (refused): /readyz stays 200 by default, 503 with READINESS_INCLUDES_UPSTREAMS', async (t) => {
  const edgeAuth = await startUpstream(t, answering(200))
  const lenient = await readyz(await edgeWithBackends(t, DEAD_UPSTREAM, edgeAuth.url))
  t.equal(lenient.status, 200, 'a shared backend down does not take every instance out of the balancer')
  t.same(lenient.body, { status: 'ready', upstreams: { accounts: { state: 'down', reason: 'refused' }, edgeAuth: { state: 'up' } } })

  const strict = await readyz(await edgeWithBackends(t, DEAD_UPSTREAM, edgeAuth.url, { READINESS_INCLUDES_UPSTREAMS: 'true' }))
  t.equal(strict.status, 503)
  t.same(strict.body, { status: 'not ready', upstreams: { accounts: { state: 'down', reason: 'refused' }, edgeAuth: { state: 'up' } } })
  for (const { raw } of [lenient, strict]) t.notMatch(raw, /127\.0\.0\.1|:9\b|http/, 'the body names no address, port or URL')
})

t.test('a backend answering 500 is down (status 500), with and without READINESS_INCLUDES_UPSTREAMS', async (t) => {
  const failing = await startUpstream(t, jsonAnswer(500, { error: 'boom' }))
  const fine = await startUpstream(t, answering(200))
  const lenient = await readyz(await edgeWithBackends(t, fine.url, failing.url))
  t.equal(lenient.status, 200)
  t.same(lenient.body.upstreams.edgeAuth, { state: 'down', reason: 'status 500' })
  const strict = await readyz(await edgeWithBackends(t, fine.url, failing.url, { READINESS_INCLUDES_UPSTREAMS: 'true' }))
  t.equal(strict.status, 503)
  t.same(strict.body.upstreams, { accounts: { state: 'up' }, edgeAuth: { state: 'down', reason: 'status 500' } })
})

t.test('a backend slower than the probe\'s time limit is down (timeout), and /readyz does not wait for it', async (t) => {
  const slow = await startUpstream(t, (_request, response) => { setTimeout(() => response.end('late'), 5_000).unref() })
  const edge = await edgeWithBackends(t, slow.url, slow.url, { READINESS_INCLUDES_UPSTREAMS: 'true' })
  // Timed from the probe alone, not the edge's start, which a loaded machine slows by seconds.
  const started = performance.now()
  const result = await readyz(edge)
  const elapsed = performance.now() - started
  t.equal(result.status, 503)
  t.same(result.body.upstreams, { accounts: { state: 'down', reason: 'timeout' }, edgeAuth: { state: 'down', reason: 'timeout' } })
  // The verdict is the order, not a speed: past the probe's limit, before the backend's 5 s answer.
  t.ok(elapsed >= PROBE_TIMEOUT_MS - 50 && elapsed < 5_000, `answered at the probe's limit, not the backend's (${Math.round(elapsed)} ms)`)
  t.equal(slow.requests.length, 1, 'one probe for both services at the same URL')
})

t.test('a backend whose certificate does not verify is down (tls), and the probe sends it no request', { skip: opensslSkip }, async (t) => {
  const fine = await startUpstream(t, answering(200))
  const untrusted = await selfSignedServer(t)
  const lenient = await readyz(await edgeWithBackends(t, untrusted.url, fine.url))
  t.equal(lenient.status, 200)
  t.same(lenient.body.upstreams.accounts, { state: 'down', reason: 'tls' })
  const strict = await readyz(await edgeWithBackends(t, untrusted.url, fine.url, { READINESS_INCLUDES_UPSTREAMS: 'true' }))
  t.equal(strict.status, 503)
  t.equal(untrusted.reached(), false, 'no request reached the unverified server')
})

t.test('a status HTTP does not have is unreadable, not a reason of its own', async (t) => {
  const odd = await startUpstream(t, answering(999))
  const result = await readyz(await edgeWithBackends(t, odd.url, odd.url))
  t.same(result.body.upstreams, { accounts: { state: 'down', reason: 'unreadable' }, edgeAuth: { state: 'down', reason: 'unreadable' } })
})

t.test('a redirect is an answer below 500: up, and not followed', async (t) => {
  const target = await startUpstream(t, answering(500))
  const redirecting = await startUpstream(t, answering(302, { location: `${target.url}/elsewhere` }))
  const result = await readyz(await edgeWithBackends(t, redirecting.url, redirecting.url, { READINESS_INCLUDES_UPSTREAMS: 'true' }))
  t.equal(result.status, 200)
  t.same(result.body.upstreams, { accounts: { state: 'up' }, edgeAuth: { state: 'up' } })
  t.same(target.requests, [], 'the redirect\'s target is never asked')
})

t.test('the embedded service counts whatever READINESS_INCLUDES_UPSTREAMS says: starting, then up, then down', async (t) => {
  let answer = 'down'
  const embedded = await startUpstream(t, (request, response) => {
    if (answer === 'down') response.socket?.destroy()
    else jsonAnswer(request.url === '/healthz' ? 200 : 404, { status: 'ok' })(request, response)
  })
  const app = await buildEdge(t, { accountsUpstream: embedded.url, edgeAuthUpstream: embedded.url })
  const starting = await readyz(app)
  t.equal(starting.status, 503, 'this instance\'s own service not up yet: not ready')
  t.same(starting.body.upstreams, { accounts: { state: 'down', reason: 'starting' }, edgeAuth: { state: 'down', reason: 'starting' } })

  answer = 'up'
  await new Promise((resolve) => setTimeout(resolve, 2_100))
  const up = await readyz(app)
  t.equal(up.status, 200)
  t.same(up.body.upstreams, { accounts: { state: 'up' }, edgeAuth: { state: 'up' } })
  t.same(embedded.requests.map((request) => request.url), ['/healthz', '/healthz'], 'its health route, once a round for both services')

  answer = 'down'
  await new Promise((resolve) => setTimeout(resolve, 2_100))
  const down = await readyz(app)
  t.equal(down.status, 503)
  t.same(down.body.upstreams.accounts, { state: 'down', reason: 'reset' }, 'once it has been up, a failure is a failure')
})

t.test('an own accounts service beside the embedded domain-check responder: each counts by its own rule', async (t) => {
  let embeddedUp = true
  const embedded = await startUpstream(t, (request, response) => {
    if (embeddedUp) answering(200)(request, response)
    else response.socket?.destroy()
  })
  const ownAccountsDown = await buildEdge(t, { env: { ACCOUNTS_URL: DEAD_UPSTREAM }, accountsUpstream: DEAD_UPSTREAM, edgeAuthUpstream: embedded.url })
  const lenient = await readyz(ownAccountsDown)
  t.equal(lenient.status, 200, 'the shared accounts service down: still ready')
  t.same(lenient.body.upstreams, { accounts: { state: 'down', reason: 'refused' }, edgeAuth: { state: 'up' } })
  t.same(embedded.requests.map((request) => request.url), ['/healthz'], 'the embedded responder is asked on its health route')

  embeddedUp = false
  const ownAccountsUp = await startUpstream(t, answering(200))
  const embeddedDown = await readyz(await buildEdge(t, { env: { ACCOUNTS_URL: ownAccountsUp.url }, accountsUpstream: ownAccountsUp.url, edgeAuthUpstream: embedded.url }))
  t.equal(embeddedDown.status, 503, 'this instance\'s own responder not answering: not ready, without READINESS_INCLUDES_UPSTREAMS')
  t.same(embeddedDown.body.upstreams, { accounts: { state: 'up' }, edgeAuth: { state: 'down', reason: 'starting' } })
})

t.test('concurrent /readyz share one probe per upstream, and the result is reused for two seconds', async (t) => {
  const accounts = await startUpstream(t, (_request, response) => { setTimeout(() => response.end('ok'), 100) })
  const edgeAuth = await startUpstream(t, answering(200))
  const app = await edgeWithBackends(t, accounts.url, edgeAuth.url)
  const answers = await Promise.all(Array.from({ length: 50 }, async () => app.inject({ url: '/readyz' })))
  t.ok(answers.every((answer) => answer.statusCode === 200), 'all answered')
  t.equal(accounts.requests.length, 1, 'fifty /readyz, one request to the accounts service')
  t.equal(edgeAuth.requests.length, 1, 'and one to the domain-check service')
  await app.inject({ url: '/readyz' })
  t.equal(accounts.requests.length + edgeAuth.requests.length, 2, 'a /readyz within two seconds asks nobody')
})

t.test('state changes are logged once each: down (warn, with the reason), back up (info, with how long it was down)', async (t) => {
  let failing = false
  const backend = await startUpstream(t, (request, response) => answering(failing ? 503 : 200)(request, response))
  const { lines, logger } = captureLog()
  const logHost = Fastify({ logger })
  t.teardown(() => logHost.close())
  const seen: Array<[string, ProbeResult]> = []
  const probes = createUpstreamProbes({
    upstreams: [{ name: 'accounts', url: backend.url, embedded: false }],
    log: logHost.log,
    cacheMs: 0,
    onProbe: (upstream, result) => seen.push([upstream, result])
  })
  for (const state of [false, false, true, true, true, false, false]) {
    failing = state
    await probes.check()
  }
  const changes = lines.filter((line) => line.msg === 'upstream up' || line.msg === 'upstream down')
  t.match(changes, [
    { level: 30, msg: 'upstream up', upstream: 'accounts' },
    { level: 40, msg: 'upstream down', upstream: 'accounts', reason: 'status 503', probeMs: Number },
    { level: 30, msg: 'upstream up', upstream: 'accounts', downForMs: Number }
  ], 'seven probes, three changes, three lines')
  t.equal(changes.length, 3)
  t.notMatch(JSON.stringify(lines), /127\.0\.0\.1|http:/, 'no address in the log')
  t.equal(seen.length, 7, 'onProbe hears every probe')
  t.match(seen[2], ['accounts', { up: false, reason: 'status 503', durationMs: Number }])
  t.match(seen[6], ['accounts', { up: true, reason: null }])
})

t.test('a TLS failure is logged as an error, once', { skip: opensslSkip }, async (t) => {
  const untrusted = await selfSignedServer(t)
  const { lines, logger } = captureLog()
  const logHost = Fastify({ logger })
  t.teardown(() => logHost.close())
  const probes = createUpstreamProbes({ upstreams: [{ name: 'edge-auth', url: untrusted.url, embedded: false }], log: logHost.log, cacheMs: 0 })
  await probes.check()
  await probes.check()
  t.match(lines.filter((line) => line.msg === 'upstream down'), [{ level: 50, upstream: 'edge-auth', reason: 'tls' }])
  t.equal(lines.filter((line) => line.msg === 'upstream down').length, 1)
})

t.test('an own backend down at the start is logged as down; the embedded service starting is not', async (t) => {
  const { lines, logger } = captureLog()
  const logHost = Fastify({ logger })
  t.teardown(() => logHost.close())
  const probes = createUpstreamProbes({
    upstreams: [{ name: 'accounts', url: DEAD_UPSTREAM, embedded: false }, { name: 'edge-auth', url: `${DEAD_UPSTREAM}/healthz`, embedded: true }],
    log: logHost.log,
    cacheMs: 0
  })
  await probes.check()
  t.match(lines.filter((line) => line.msg === 'upstream down'), [{ level: 40, upstream: 'accounts', reason: 'refused' }])
  t.equal(lines.filter((line) => line.msg === 'upstream down').length, 1)
})
