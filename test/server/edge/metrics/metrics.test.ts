import type { FastifyInstance } from 'fastify'
import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { CheckDomainAuthorizationResponse } from '../../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { ConfigError, loadServerConfig } from '../../../../server/edge/config.js'
import { startMetricsListener } from '../../../../server/edge/metrics/metrics-listener.js'
import { createEdgeMetrics, type EdgeMetrics } from '../../../../server/edge/metrics/metrics.js'
import { PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, SPEC_ACCOUNTS_ROUTES, withRoutes } from '../../../../server/shared/accounts-routes.js'
import { DATA_FRAME, encodeFrame, encodeTrailers } from '../../../../server/shared/domain-check/grpc-web-frames.js'
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, listen, startUpstream, type EdgeOptions, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { startEdgeAuthResponder } from '../../../fixtures/domain-check/edge-auth.js'
import { answerByPath } from '../../../fixtures/second-factor/second-factor.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { injectJson } from '../../../fixtures/http/post-json.js'

/*
 * The edge's metrics (METRICS_PORT): the listener of their own, what is
 * counted for real requests through the edge, and that no label or value
 * carries what a visitor sent.
 */

const JSON_HEADERS = { 'content-type': 'application/json', host: 'signin.example.test' }
const ALL_ROUTES = withRoutes(SPEC_ACCOUNTS_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES)

/** An edge with metrics on, recording into a registry without the process's own figures (many edges run in this file). */
async function edgeWithMetrics (t: Test, options: EdgeOptions = {}): Promise<{ app: FastifyInstance, metrics: EdgeMetrics }> {
  const metrics = createEdgeMetrics({ version: '0.0.0-test', processMetrics: false })
  const app = await buildEdge(t, { accountsRoutes: ALL_ROUTES, ...options, metrics, env: { METRICS_PORT: '0', ...options.env } })
  return { app, metrics }
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
function sample (text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) total += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return total
}

/** The number of series in a scrape: every line that is not a comment. */
const seriesCount = (text: string): number => text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length

/** An accounts call from the page's host; its status. */
async function post (app: FastifyInstance, path: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  return (await injectJson(app, `/accounts/${path}`, body, { ...JSON_HEADERS, ...headers })).statusCode
}

t.test('METRICS_PORT: unset is off; a port is read; anything else, or PORT itself, stops the start naming METRICS_PORT', async (t) => {
  t.equal(loadServerConfig({}).metricsPort, null)
  t.equal(loadServerConfig({ METRICS_PORT: '9464' }).metricsPort, 9464)
  t.equal(loadServerConfig({ METRICS_PORT: '0', PORT: '0' }).metricsPort, 0, '0 takes any free port, as PORT=0 does')
  for (const bad of ['metrics', '-1', '65536', '9464.5', '9 464', '0x2000']) {
    t.throws(() => loadServerConfig({ METRICS_PORT: bad }), { name: 'ConfigError', variable: 'METRICS_PORT', message: /^METRICS_PORT must be a whole number from 0 to 65535/ }, bad)
  }
  t.throws(() => loadServerConfig({ PORT: '9000', METRICS_PORT: '9000' }), new ConfigError('METRICS_PORT', 'must differ from PORT: the metrics are never served on the public port', '9000'))
  t.throws(() => loadServerConfig({ METRICS_PORT: '8080' }), /METRICS_PORT must differ from PORT/, 'PORT\'s default counts too')
})

t.test('a METRICS_PORT another process holds stops the start with a message naming METRICS_PORT', async (t) => {
  const holder = createServer().listen(0, '127.0.0.1')
  await once(holder, 'listening')
  t.teardown(() => holder.close())
  const port = (holder.address() as AddressInfo).port
  await t.rejects(startMetricsListener({ metrics: createEdgeMetrics({ version: 'x', processMetrics: false }), port, host: '127.0.0.1' }),
    { name: 'ConfigError', variable: 'METRICS_PORT', message: `METRICS_PORT is taken on 127.0.0.1: another process listens on port ${port}` })
})

t.test('the listener answers GET /metrics in the text format, 404 elsewhere, 405 for another method, and appends extra figures', async (t) => {
  const metrics = createEdgeMetrics({ version: '1.2.3', processMetrics: true })
  let extraFails = false
  const failures: unknown[] = []
  const listener = await startMetricsListener({
    metrics,
    port: 0,
    host: '127.0.0.1',
    extraMetrics: async () => {
      if (extraFails) throw new Error('reference unreachable')
      return '# TYPE threshold_reference_up gauge\nthreshold_reference_up 1\n'
    },
    onExtraFailure: (error) => failures.push(error)
  })
  t.teardown(() => listener.close())
  const base = `http://127.0.0.1:${listener.port}`

  const scrape = await fetch(`${base}/metrics`)
  t.equal(scrape.status, 200)
  t.match(scrape.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = await scrape.text()
  t.equal(sample(text, 'threshold_build_info', { version: '1.2.3', node: process.version }), 1)
  t.match(text, /^process_cpu_user_seconds_total /m, 'the process\'s own figures')
  t.match(text, /^nodejs_eventloop_lag_seconds /m)
  t.match(text, /\nthreshold_reference_up 1\n$/, 'the extra figures come last')
  t.equal((await fetch(`${base}/metrics?x=1`)).status, 200, 'a query string changes nothing')
  t.equal((await fetch(`${base}/`)).status, 404)
  t.equal((await fetch(`${base}/metrics/`)).status, 404)
  const posted = await fetch(`${base}/metrics`, { method: 'POST' })
  t.equal(posted.status, 405)
  t.equal(posted.headers.get('allow'), 'GET, HEAD')

  extraFails = true
  const without = await (await fetch(`${base}/metrics`)).text()
  t.notMatch(without, /threshold_reference_up/, 'failing extra figures are left out')
  t.match(without, /threshold_build_info/, 'and the edge\'s own are still served')
  t.equal(failures.length, 1)
})

t.test('the request histogram is cumulative, in seconds, and the whole scrape passes promtool check metrics', async (t) => {
  const metrics = createEdgeMetrics({ version: '1.2.3', processMetrics: true })
  for (const seconds of [0.0001, 0.0005, 0.002, 0.3, 42]) metrics.request('page', 'GET', 200, seconds)
  metrics.request('accounts/v2/login', 'POST', 401, 0.05)
  metrics.signIn('password', 'refused')
  metrics.upstreamProbe('accounts', true, 0.01)
  const text = await metrics.text()
  const bucket = (le: string): number => sample(text, 'threshold_http_request_duration_seconds_bucket', { le, route: 'page' })
  t.equal(bucket('0.0005'), 2, 'a time on a bound is in that bucket')
  t.equal(bucket('0.0025'), 3)
  t.equal(bucket('0.5'), 4)
  t.equal(bucket('10'), 4)
  t.equal(bucket('+Inf'), 5)
  t.equal(sample(text, 'threshold_http_request_duration_seconds_count', { route: 'page' }), 5)
  t.ok(Math.abs(sample(text, 'threshold_http_request_duration_seconds_sum', { route: 'page' }) - 42.3026) < 1e-9)
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'page', method: 'GET', status: '200' }), 5)
  t.equal(sample(text, 'threshold_upstream_up', { upstream: 'accounts' }), 1)

  const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
  if (promtool.error !== undefined) {
    t.comment('promtool is not installed (Debian package prometheus): its check is left out')
    return
  }
  // Exit 1: a line Prometheus cannot read; 3: lint findings, which prom-client's own
  // nodejs_active_*_total gauges have, and which none of ours may have.
  const output = `${promtool.stdout}${promtool.stderr}`
  t.not(promtool.status, 1, `promtool reads every line: ${output}`)
  t.notMatch(output, /threshold_/, 'no lint finding on our own metrics')
})

t.test('/metrics is not served on the public port, with or without METRICS_PORT', async (t) => {
  for (const env of [{}, { METRICS_PORT: '0' }] as Array<Record<string, string>>) {
    const app = await buildEdge(t, { env })
    const base = await listen(app)
    t.equal((await fetch(`${base}/metrics`)).status, 404, `listening, ${JSON.stringify(env)}`)
    t.equal((await app.inject({ url: '/metrics' })).statusCode, 404, `injected, ${JSON.stringify(env)}`)
  }
})

t.test('without METRICS_PORT nothing is recorded', async (t) => {
  const app = await buildEdge(t)
  t.equal(app.metrics, null)
})

t.test('the page and its assets are counted on the hot path, once each, and routes never carry the path sent', async (t) => {
  const { app, metrics } = await edgeWithMetrics(t)
  const base = await listen(app)
  for (const url of ['/', '/?redirect=https%3A%2F%2Fapp.example.test%2Fsecret-path&login_hint=lovelace%40example.test', '/']) {
    await (await fetch(`${base}${url}`)).text()
  }
  await (await fetch(`${base}/`, { method: 'HEAD' })).text()
  await (await fetch(`${base}/no-such-page-1234`)).text()
  await (await fetch(`${base}/healthz`)).text()
  const injected = await app.inject({ url: '/' })
  t.equal(injected.statusCode, 200)

  const text = await metrics.text()
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'page', method: 'GET', status: '200' }), 4, 'three fetched and one injected, each once')
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'page', method: 'HEAD', status: '200' }), 1)
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'other', method: 'GET', status: '404' }), 1)
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'healthz', method: 'GET', status: '200' }), 1)
  t.equal(sample(text, 'threshold_http_request_duration_seconds_count', { route: 'page' }), 5)
  t.notMatch(text, /secret-path|lovelace|example\.test|no-such-page/, 'nothing of the request in the scrape')
})

/** An accounts stand-in answering each path as a sign-in would. */
function signInAnswers () {
  return answerByPath({
    '/v2/login': [200, { auth: 'tok.auth.secret', refresh: 'tok-refresh-secret' }],
    '/v2/auth/login': [200, { auth: 'tok.auth.secret', refresh: 'tok-refresh-secret' }],
    '/passkeys/login': [200, { auth: 'tok.auth.secret', refresh: 'tok-refresh-secret', email: 'ada@example.test' }],
    '/passkeys/register': [200, { success: 'ok' }],
    '/second-factor/verify': [200, { auth: 'tok.auth.secret', refresh: 'tok-refresh-secret' }]
  })
}

t.test('sign-ins are counted by method and outcome from the answers, with nothing of the bodies in the scrape', async (t) => {
  let answer = signInAnswers()
  const upstream = await startUpstream(t, (request, response) => answer(request, response))
  const { app, metrics } = await edgeWithMetrics(t, { accountsUpstream: upstream.url })
  const email = 'ada.lovelace@example.test'
  const password = 'a-password-never-shown'

  t.equal(await post(app, 'v2/login', { email, password }), 200)
  t.equal(await post(app, 'v2/auth/login', { email, login_method: 'GOOGLE' }, { authorization: 'Bearer google.id.token-secret' }), 200)
  t.equal(await post(app, 'v2/auth/login', { email, login_method: 'SAML', id: 'sso-once-secret' }), 200)
  t.equal(await post(app, 'v2/auth/login', { email, login_method: 'OIDC', id: 'sso-once-secret' }), 200)
  t.equal(await post(app, 'passkeys/login', { credential: {}, mediation: 'conditional' }), 200)
  t.equal(await post(app, 'passkeys/login', { credential: {}, mediation: 'button' }), 200)
  t.equal(await post(app, 'passkeys/login', { credential: {} }), 200)
  t.equal(await post(app, 'second-factor/verify', { challenge: 'challenge-secret', code: '123456', remember_browser: false }), 200)
  t.equal(await post(app, 'second-factor/verify', { challenge: 'challenge-secret', recovery_code: 'abcd-efgh', remember_browser: false }), 200)
  t.equal(await post(app, 'passkeys/register', { credential: {}, conditional: true }, { authorization: 'Bearer tok.auth.secret' }), 200)
  t.equal(await post(app, 'passkeys/register', { credential: {} }, { authorization: 'Bearer tok.auth.secret' }), 200)

  answer = answerByPath({ '/v2/login': [200, { second_factor: 'code', challenge: 'challenge-secret', expires_in: 300 }] })
  t.equal(await post(app, 'v2/login', { email, password }), 200)
  answer = answerByPath({ '/v2/login': [401, { error: 'Wrong email or password.' }], '/passkeys/register': [409, { error: 'Registered already.' }] })
  t.equal(await post(app, 'v2/login', { email, password }), 401)
  t.equal(await post(app, 'passkeys/register', { credential: {} }, { authorization: 'Bearer tok.auth.secret' }), 409)
  answer = answerByPath({ '/v2/login': [500, { error: 'Internal failure.' }] })
  t.equal(await post(app, 'v2/login', { email, password }), 500)

  const text = await metrics.text()
  const signIns = (method: string, outcome: string): number => sample(text, 'threshold_sign_ins_total', { method, outcome })
  t.equal(signIns('password', 'success'), 1)
  t.equal(signIns('password', 'second_factor_required'), 1)
  t.equal(signIns('password', 'refused'), 1)
  t.equal(signIns('password', 'error'), 1)
  t.equal(signIns('google', 'success'), 1)
  t.equal(signIns('sso', 'success'), 2)
  t.equal(signIns('passkey_autofill', 'success'), 1)
  t.equal(signIns('passkey_button', 'success'), 2, 'a passkey sign-in that does not name its ceremony counts as the button')
  t.equal(signIns('second_factor', 'success'), 1)
  t.equal(signIns('recovery_code', 'success'), 1)
  t.equal(sample(text, 'threshold_passkey_registrations_total', { kind: 'automatic_upgrade', outcome: 'success' }), 1)
  t.equal(sample(text, 'threshold_passkey_registrations_total', { kind: 'offer', outcome: 'success' }), 1)
  t.equal(sample(text, 'threshold_passkey_registrations_total', { kind: 'offer', outcome: 'refused' }), 1)
  t.equal(sample(text, 'threshold_upstream_failures_total', { upstream: 'accounts', kind: 'server_error' }), 1, 'the 500 answer')
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'accounts/v2/login', method: 'POST', status: '200' }), 2)
  t.equal(sample(text, 'threshold_http_request_duration_seconds_count', { route: 'accounts/v2/login' }), 4)
  for (const secret of [email, 'lovelace', password, 'secret', '123456', 'abcd-efgh', 'Wrong email']) {
    t.notOk(text.includes(secret), `${secret} is nowhere in the scrape`)
  }
})

t.test('upstream failures are counted by kind: refused, reset, timeout, unreadable, a 5xx', async (t) => {
  const slow = await startUpstream(t, () => undefined)
  const html = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<html>login</html>')
  })
  const refused = await edgeWithMetrics(t, { accountsUpstream: DEAD_UPSTREAM })
  t.equal(await post(refused.app, 'v2/login', { email: 'a@b.test', password: 'p' }), 503)
  t.equal(sample(await refused.metrics.text(), 'threshold_upstream_failures_total', { upstream: 'accounts', kind: 'refused' }), 1)
  t.equal(sample(await refused.metrics.text(), 'threshold_sign_ins_total', { method: 'password', outcome: 'error' }), 1)

  const hangUp = await startUpstream(t, (_request, response) => { response.socket?.destroy() })
  const reset = await edgeWithMetrics(t, { accountsUpstream: hangUp.url })
  t.equal(await post(reset.app, 'v2/login', { email: 'a@b.test', password: 'p' }), 502)
  t.equal(sample(await reset.metrics.text(), 'threshold_upstream_failures_total', { upstream: 'accounts', kind: 'reset' }), 1, 'a connection closed without an answer')

  const timedOut = await edgeWithMetrics(t, { accountsUpstream: slow.url, env: { UPSTREAM_TIMEOUT_MS: '200' } })
  t.equal(await post(timedOut.app, 'v2/login', { email: 'a@b.test', password: 'p' }), 504)
  t.equal(sample(await timedOut.metrics.text(), 'threshold_upstream_failures_total', { upstream: 'accounts', kind: 'timeout' }), 1)

  const unreadable = await edgeWithMetrics(t, { accountsUpstream: html.url })
  t.equal(await post(unreadable.app, 'v2/login', { email: 'a@b.test', password: 'p' }), 502)
  t.equal(sample(await unreadable.metrics.text(), 'threshold_upstream_failures_total', { upstream: 'accounts', kind: 'unreadable' }), 1)

  const failing = await startUpstream(t, (_request, response) => {
    response.writeHead(500, { 'content-type': 'text/html' })
    response.end('<html>oops</html>')
  })
  const link = await edgeWithMetrics(t, { accountsUpstream: failing.url, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  t.equal((await link.app.inject({ url: '/accounts/verifyEmail?token=x', headers: { host: 'signin.example.test' } })).statusCode, 500, 'an emailed link is passed on as it is')
  t.equal(sample(await link.metrics.text(), 'threshold_upstream_failures_total', { upstream: 'accounts', kind: 'server_error' }), 1, 'and its 5xx counted')
})

t.test('rate-limit refusals are counted by limit', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
  const { app, metrics } = await edgeWithMetrics(t, { accountsUpstream: upstream.url, env: { RATE_LIMIT_PER_MINUTE: '1' } })
  t.equal(await post(app, 'v2/login', { email: 'a@b.test', password: 'p' }), 401)
  t.equal(await post(app, 'v2/login', { email: 'a@b.test', password: 'p' }), 429)
  const text = await metrics.text()
  t.equal(sample(text, 'threshold_rate_limited_total', { limit: 'accounts' }), 1)
  t.equal(sample(text, 'threshold_sign_ins_total', { method: 'password', outcome: 'refused' }), 2, 'a rate-limited sign-in is refused')
})

/** A gRPC-web answer carrying `authorization`. */
function grpcWebAnswer (authorization: number) {
  return (_request: RecordedRequest, response: ServerResponse): void => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(authorization).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeTrailers(0)]))
  }
}

t.test('domain checks are counted by source and result: the proxied call and the enforced check', async (t) => {
  let answer = grpcWebAnswer(1)
  const edgeAuth = await startUpstream(t, (request, response) => answer(request, response))
  const { app, metrics } = await edgeWithMetrics(t, { edgeAuthUpstream: edgeAuth.url })
  const check = async (): Promise<Buffer> => (await app.inject({
    method: 'POST',
    url: CHECK_DOMAIN_AUTHORIZATION_PATH,
    headers: { 'content-type': 'application/grpc-web+proto', host: 'signin.example.test' },
    payload: encodeFrame(DATA_FRAME, Buffer.from([0x0a, 0x04, 0x61, 0x2e, 0x62, 0x63]))
  })).rawPayload
  const authorized = await check()
  t.equal(authorized.length, 5 + 2 + encodeTrailers(0).length, 'the answer passes on whole')
  answer = grpcWebAnswer(2)
  await check()
  answer = grpcWebAnswer(0)
  await check()
  answer = jsonAnswer(500, { error: 'down' })
  await check()

  const responder = await startEdgeAuthResponder(t, { authorized: ['example.test'], unauthorized: ['blocked.test'] })
  const accounts = await startUpstream(t, jsonAnswer(200, { auth: 'a.b.c', refresh: 'r' }))
  const enforced = await edgeWithMetrics(t, { accountsUpstream: accounts.url, edgeAuthUpstream: responder, env: { DOMAIN_CHECK_ENFORCED: 'true' } })
  t.equal(await post(enforced.app, 'v2/login', { email: 'ada@example.test', password: 'p' }), 200)
  t.equal(await post(enforced.app, 'v2/login', { email: 'ada@blocked.test', password: 'p' }), 403)
  const failing = await edgeWithMetrics(t, { accountsUpstream: accounts.url, edgeAuthUpstream: DEAD_UPSTREAM, env: { DOMAIN_CHECK_ENFORCED: 'true' } })
  t.equal(await post(failing.app, 'v2/login', { email: 'ada@example.test', password: 'p' }), 503)

  const text = await metrics.text()
  const checks = (source: string, result: string, from = text): number => sample(from, 'threshold_domain_checks_total', { source, result })
  t.equal(checks('page', 'authorized'), 1)
  t.equal(checks('page', 'unauthorized'), 1)
  t.equal(checks('page', 'unspecified'), 1)
  t.equal(checks('page', 'failed'), 1)
  t.equal(sample(text, 'threshold_upstream_failures_total', { upstream: 'edge_auth', kind: 'server_error' }), 1)
  t.equal(sample(text, 'threshold_http_requests_total', { route: 'domain_check', method: 'POST', status: '200' }), 3)
  const enforcedText = await enforced.metrics.text()
  t.equal(checks('enforced', 'authorized', enforcedText), 1)
  t.equal(checks('enforced', 'unauthorized', enforcedText), 1)
  t.equal(sample(enforcedText, 'threshold_sign_ins_total', { method: 'password', outcome: 'refused' }), 1, 'the refused login')
  t.equal(checks('enforced', 'failed', await failing.metrics.text()), 1)
})

t.test('a hostile run of random paths, methods and hosts does not grow the number of series', async (t) => {
  const { app, metrics } = await edgeWithMetrics(t)
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']
  const base = await listen(app)
  const run = async (round: number): Promise<void> => {
    for (let index = 0; index < 150; index++) {
      const path = [`/r${round}-${index}`, `/accounts/x${round}${index}`, `/assets/a${index}.js`, `/accounts/v2/login?e=${index}@x.test`][index % 4]
      const method = methods[index % methods.length]!
      await app.inject({ method: method as 'GET', url: path, headers: { host: `h${round}-${index}.example.test` }, ...(method === 'POST' ? { payload: '{}' } : {}) })
      if (index % 10 === 0) await (await fetch(`${base}${path}`, { method: method === 'POST' || method === 'PATCH' ? 'GET' : method, headers: { host: `f${index}.test` } })).arrayBuffer()
    }
  }
  await run(1)
  const first = await metrics.text()
  const heapBefore = process.memoryUsage().heapUsed
  await run(2)
  await run(3)
  const after = await metrics.text()
  t.equal(seriesCount(after), seriesCount(first), 'new paths and hosts make no new series')
  t.notMatch(after, /r[123]-|x\.test|example\.test|\/accounts\/x/, 'no path or host in any label')
  // Loosely: two more rounds of new paths hold no memory per path (a leak would keep megabytes).
  t.ok(process.memoryUsage().heapUsed - heapBefore < 64 * 1024 * 1024, 'memory does not grow without bound')
})

t.test('each failed backend call is counted once: a gRPC-web 5xx cut off mid-body, a trailers-only UNAVAILABLE, an emailed link reset mid-body', async (t) => {
  // A 503 gRPC-web answer whose body is cut off: one failure (the cut), not a server_error and a reset.
  const cutOff = await startUpstream(t, (_request, response) => {
    response.writeHead(503, { 'content-type': 'application/grpc-web+proto', 'content-length': '100' })
    response.write(Buffer.from([0x00, 0x00, 0x00]))
    setTimeout(() => response.socket?.destroy(), 20)
  })
  const grpc = await edgeWithMetrics(t, { edgeAuthUpstream: cutOff.url })
  const domainCheck = async (app: FastifyInstance): Promise<void> => {
    await app.inject({
      method: 'POST',
      url: CHECK_DOMAIN_AUTHORIZATION_PATH,
      headers: { 'content-type': 'application/grpc-web+proto', host: 'signin.example.test' },
      payload: encodeFrame(DATA_FRAME, Buffer.from([0x0a, 0x04, 0x61, 0x2e, 0x62, 0x63]))
    })
  }
  await domainCheck(grpc.app)
  t.equal(sample(await grpc.metrics.text(), 'threshold_upstream_failures_total', { upstream: 'edge_auth' }), 1, 'one failure for one call')

  // HTTP 200 with grpc-status 14 in the headers (trailers-only): the service says it failed.
  const unavailable = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'grpc-status': '14', 'grpc-message': 'down' })
    response.end()
  })
  const trailersOnly = await edgeWithMetrics(t, { edgeAuthUpstream: unavailable.url })
  await domainCheck(trailersOnly.app)
  const text = await trailersOnly.metrics.text()
  t.equal(sample(text, 'threshold_upstream_failures_total', { upstream: 'edge_auth', kind: 'server_error' }), 1, 'counted as the service\'s failure')
  t.equal(sample(text, 'threshold_domain_checks_total', { source: 'page', result: 'failed' }), 1)

  // An emailed link (a GET passed on as it is) whose answer is reset mid-body.
  const resetLink = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' })
    response.write('<html>')
    setTimeout(() => response.socket?.destroy(), 20)
  })
  const link = await edgeWithMetrics(t, { accountsUpstream: resetLink.url, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  await link.app.inject({ url: '/accounts/verifyEmail?token=x', headers: { host: 'signin.example.test' } }).catch(() => undefined)
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(sample(await link.metrics.text(), 'threshold_upstream_failures_total', { upstream: 'accounts', kind: 'reset' }), 1, 'the reset is counted')
})
