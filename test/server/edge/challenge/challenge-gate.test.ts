import type { FastifyInstance } from 'fastify'
import { createServer, type IncomingMessage } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { CHALLENGE_HEADER, CHALLENGE_HEADER_MAX_LENGTH, CHALLENGED_PATHS } from '../../../../common/challenge/challenge.js'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import germanCatalogue from '../../../../common/messages/de.json' with { type: 'json' }
import { edgeKeys } from '../../../../server/edge/keys/edge-secrets.js'
import { issueProofOfWork, LEVEL_ONE_MAX_COUNTER, POW_COST } from '../../../../server/edge/challenge/proof-of-work.js'
import { createEdgeMetrics } from '../../../../server/edge/metrics/metrics.js'
import { PROVIDER_ANSWER_LIMIT_BYTES } from '../../../../server/edge/challenge/provider-token.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { buildEdge, captureLog, DEAD_UPSTREAM, jsonAnswer, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { encodeSolution, solvedHeader } from '../../../fixtures/challenge/challenge.js'
import { followFlash, formBody, PAGE_POST_HEADERS, stateIn } from '../../../fixtures/no-script/form-page.js'
import type { ServerResponse } from 'node:http'
import { injectJson } from '../../../fixtures/http/post-json.js'

const EDGE_SECRET = 'a test edge secret of at least thirty-two characters'
const ALWAYS = { CHALLENGE_RANGE_FAILURES: '0', EDGE_SECRET, TRUST_PROXY: 'loopback' }
const TOKENS = { auth: 'auth.token-1', refresh: 'refresh.token-1' }

/** The accounts service: a login with the password `right` succeeds; every other login is refused 401; the rest answer success. */
function accounts (request: RecordedRequest, response: ServerResponse): void {
  const body = JSON.parse(request.body.toString('utf8') || '{}') as Record<string, unknown>
  const [status, answer] = request.url === '/v2/login'
    ? body.password === 'right' ? [200, TOKENS] : [401, { error: 'Wrong email or password.' }]
    : [200, { success: 'Done.' }]
  const text = JSON.stringify(answer)
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

/** The calls the backend received, without the readiness probes a metrics scrape makes. */
const calls = (upstream: { requests: RecordedRequest[] }): RecordedRequest[] => upstream.requests.filter((request) => request.url !== '/healthz')

async function edgeWith (t: Test, env: Record<string, string> = ALWAYS, logger?: ReturnType<typeof captureLog>['logger']) {
  const upstream = await startUpstream(t, accounts)
  const metrics = createEdgeMetrics({ version: '0.0.0-test', processMetrics: false })
  // The reference service's routes: verifyEmailRequest, guarded too, is one of its own.
  const app = await buildEdge(t, { env: { METRICS_PORT: '0', ...env }, accountsUpstream: upstream.url, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES, metrics, ...(logger === undefined ? {} : { logger }) })
  return { app, upstream, metrics }
}

/** An accounts call from the page, from one address unless `headers` names another. */
function call (app: FastifyInstance, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return injectJson(app, `/accounts/${path}`, body, { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': '203.0.113.7', ...headers })
}

const LOGIN = { email: 'ada@example.com', password: 'right' }

/** The challenge of a 428 answer, after checking the answer's shape. */
function challengeOf (t: Test, response: { statusCode: number, json: () => unknown }): Record<string, unknown> {
  t.equal(response.statusCode, 428)
  const body = response.json() as { error: string, reason: string, challenge: { kind: string, challenge: Record<string, unknown> } }
  t.equal(body.reason, 'challenge_required')
  t.equal(body.challenge.kind, 'pow')
  return body.challenge.challenge
}

t.test('with risk at its threshold of 0, the four guarded calls answer 428 with a proof of work, in the visitor\'s language, and the backend is not called', async (t) => {
  const { app, upstream } = await edgeWith(t)
  for (const path of CHALLENGED_PATHS) {
    const response = await call(app, path, { email: 'ada@example.com', password: 'x' }, { 'accept-language': 'de' })
    const challenge = challengeOf(t, response)
    t.equal((response.json<{ error: string }>()).error, germanCatalogue['server.challengeRequired'])
    const parameters = challenge.parameters as Record<string, unknown>
    t.equal(parameters.algorithm, 'PBKDF2/SHA-256')
    t.equal(parameters.cost, POW_COST)
    t.equal((parameters.data as Record<string, unknown>).path, path, 'bound to its path')
    t.notMatch(JSON.stringify(challenge), /ada@|example\.com|203\.0\.113/, 'the email and the address only as keyed hashes')
    t.ok(((parameters.data as Record<string, unknown>).expires as number) > Date.now() / 1000 + 60, 'expires minutes from now')
    t.equal(parameters.expiresAt, undefined, 'by the edge\'s clock, in the signed data: altcha-lib would judge expiresAt by this process\'s')
  }
  t.equal(calls(upstream).length, 0)
})

t.test('other calls are never challenged', async (t) => {
  const { app, upstream } = await edgeWith(t)
  const response = await call(app, 'auth/login/sso', { email: 'ada@example.com' })
  t.equal(response.statusCode, 200)
  t.equal(calls(upstream).length, 1)
})

t.test('a solved challenge is accepted once, its header never reaches the backend, and the same solution is refused the second time', async (t) => {
  const { app, upstream, metrics } = await edgeWith(t)
  const header = await solvedHeader(challengeOf(t, await call(app, 'v2/login', LOGIN)))
  const passed = await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: header })
  t.equal(passed.statusCode, 200)
  t.same(passed.json(), { auth: TOKENS.auth }, 'the answer passed on (its refresh token in the edge\'s cookie)')
  t.equal(calls(upstream).length, 1)
  t.notOk(CHALLENGE_HEADER in calls(upstream)[0]!.headers, 'the solution is the edge\'s business only')
  t.notOk(JSON.stringify(calls(upstream)[0]!.headers).includes(header))

  const again = await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: header })
  challengeOf(t, again)
  t.equal((again.json<{ error: string }>()).error, englishCatalogue['server.challengeRefused'])
  t.equal(calls(upstream).length, 1, 'a reused solution is never passed on')
  const text = await metrics.text()
  t.match(text, /threshold_challenges_total\{path="v2\/login",outcome="issued"\} 1/)
  t.match(text, /threshold_challenges_total\{path="v2\/login",outcome="passed"\} 1/)
  t.match(text, /threshold_challenges_total\{path="v2\/login",outcome="refused_reused"\} 1/)
  t.match(text, /threshold_challenge_risk_levels_total\{path="v2\/login",level="1"\} 3/)
})

t.test('bad solutions: each refused with a fresh challenge, counted by why, never passed on', async (t) => {
  const { app, upstream, metrics } = await edgeWith(t)
  const keys = edgeKeys(EDGE_SECRET)
  const issued = challengeOf(t, await call(app, 'v2/login', LOGIN))
  const data = (issued.parameters as { data: { path: string, account: string, range: string } }).data
  const solved = JSON.parse(Buffer.from(await solvedHeader(issued), 'base64url').toString('utf8')) as { challenge: { parameters: Record<string, unknown>, signature: string }, solution: { counter: number, derivedKey: string } }

  const expired = await issueProofOfWork(keys, 1, data, Date.now() - 10 * 60_000)
  const foreignKeys = edgeKeys('another edge secret, of at least 32 characters')
  const forgedElsewhere = await issueProofOfWork(foreignKeys, 1, data, Date.now())
  const cases: Array<[string, string, string]> = [
    ['forged: parameters changed after signing (a higher level claimed)', encodeSolution({ ...solved.challenge, parameters: { ...solved.challenge.parameters, data: { ...data, level: 6 } } }, solved.solution), 'forged'],
    ['forged: signed with another secret', await solvedHeader(forgedElsewhere as unknown as Record<string, unknown>), 'forged'],
    ['expired', await solvedHeader(expired as unknown as Record<string, unknown>), 'expired'],
    ['unsolved: a wrong counter and key', encodeSolution(solved.challenge, { counter: solved.solution.counter + 1, derivedKey: 'ab'.repeat(32) }), 'unsolved'],
    ['unsolved: a key that is not hex', encodeSolution(solved.challenge, { counter: 1, derivedKey: 'not hex' }), 'unsolved'],
    ['too long', 'A'.repeat(CHALLENGE_HEADER_MAX_LENGTH + 1), 'malformed'],
    ['not base64url', 'not base64!', 'malformed'],
    ['base64url of something not JSON', Buffer.from('{nope').toString('base64url'), 'malformed'],
    ['JSON of another shape', Buffer.from(JSON.stringify({ challenge: 'x', solution: 1 })).toString('base64url'), 'malformed'],
    ['a challenge without data', encodeSolution({ ...solved.challenge, parameters: { ...solved.challenge.parameters, data: undefined } }, solved.solution), 'malformed'],
    ['an algorithm altcha-lib does not know', encodeSolution({ ...solved.challenge, parameters: { ...solved.challenge.parameters, algorithm: 'MD5' } }, solved.solution), 'forged']
  ]
  for (const [name, header, reason] of cases) {
    const response = await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: header })
    if (response.statusCode !== 428) t.fail(`${name}: answered ${response.statusCode}`)
    const fresh = challengeOf(t, response)
    t.not(fresh.signature, issued.signature, `${name}: a fresh challenge`)
    t.equal((response.json<{ error: string }>()).error, englishCatalogue['server.challengeRefused'], name)
    t.match(await metrics.text(), new RegExp(`outcome="refused_${reason}"`), `${name}: refused as ${reason}`)
  }
  t.equal(calls(upstream).length, 0)

  // Bound to its call: the same solution on another path, for another email, from another range.
  for (const [name, path, body, headers] of [
    ['another path', 'resetPasswordRequest', { email: LOGIN.email }, {}],
    ['another email', 'v2/login', { ...LOGIN, email: 'bob@example.com' }, {}],
    ['another range', 'v2/login', LOGIN, { 'x-forwarded-for': '198.51.100.7' }]
  ] as const) {
    challengeOf(t, await call(app, path, body, { ...headers, [CHALLENGE_HEADER]: encodeSolution(solved.challenge, solved.solution) }))
    t.pass(`bound: refused on ${name}`)
  }
  t.match(await metrics.text(), /path="v2\/login",outcome="refused_mismatch"\} 2/)
  t.match(await metrics.text(), /path="resetPasswordRequest",outcome="refused_mismatch"\} 1/)
  t.equal(calls(upstream).length, 0)
  const sameRangeOtherAddress = await call(app, 'v2/login', LOGIN, { 'x-forwarded-for': '203.0.113.200', [CHALLENGE_HEADER]: encodeSolution(solved.challenge, solved.solution) })
  t.equal(sameRangeOtherAddress.statusCode, 200, 'another address of the same /24 is the same range (a visitor whose address changes mid-solve)')
})

t.test('when risk has risen since a challenge was issued, a solution of a lower level is refused as outdated', async (t) => {
  const { app, metrics } = await edgeWith(t, { CHALLENGE_RANGE_FAILURES: '1', EDGE_SECRET, TRUST_PROXY: 'loopback' })
  t.equal((await call(app, 'v2/login', { ...LOGIN, password: 'wrong' })).statusCode, 401, 'level 0: passed on')
  const first = challengeOf(t, await call(app, 'v2/login', LOGIN))
  t.equal((first.parameters as { data: { level: number } }).data.level, 1, 'one failure from the range: level 1')
  const header = await solvedHeader(first)
  t.equal((await call(app, 'v2/login', { ...LOGIN, password: 'wrong' }, { [CHALLENGE_HEADER]: header })).statusCode, 401)
  const second = challengeOf(t, await call(app, 'v2/login', LOGIN))
  t.equal((second.parameters as { data: { level: number } }).data.level, 2, 'two failures: level 2, twice the work')
  const level1 = await issueProofOfWork(edgeKeys(EDGE_SECRET), 1, (second.parameters as { data: { path: string, account: string, range: string } }).data, Date.now())
  challengeOf(t, await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: await solvedHeader(level1 as unknown as Record<string, unknown>) }))
  t.match(await metrics.text(), /outcome="refused_outdated"\} 1/)
  const passed = await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: await solvedHeader(second) })
  t.equal(passed.statusCode, 200, 'the level-2 solution passes, and the login succeeds')
})

t.test('at level 0 nothing changes: no challenge, a stray header ignored and removed; the gate costs little per call', async (t) => {
  const { app, upstream } = await edgeWith(t, { EDGE_SECRET, TRUST_PROXY: 'loopback' })
  const response = await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: 'garbage' })
  t.equal(response.statusCode, 200)
  t.notOk(CHALLENGE_HEADER in calls(upstream)[0]!.headers)
  t.equal((await call(app, 'register', { email: 'new@example.com', password: 'long enough password' })).statusCode, 200)
})

t.test('CHALLENGE=off: no gate at all, even with thresholds of 0', async (t) => {
  const { app } = await edgeWith(t, { ...ALWAYS, CHALLENGE: 'off' })
  t.equal((await call(app, 'v2/login', LOGIN)).statusCode, 200)
})

t.test('failed logins for one account challenge it from a fresh range; a successful login clears them', async (t) => {
  const { app } = await edgeWith(t, { CHALLENGE_ACCOUNT_FAILURES: '3', EDGE_SECRET, TRUST_PROXY: 'loopback' })
  for (let i = 0; i < 3; i++) t.equal((await call(app, 'v2/login', { ...LOGIN, password: 'wrong' }, { 'x-forwarded-for': `198.51.${i}.1` })).statusCode, 401)
  challengeOf(t, await call(app, 'v2/login', LOGIN, { 'x-forwarded-for': '192.0.2.1' }))
  t.equal((await call(app, 'v2/login', { ...LOGIN, email: 'bob@example.com' }, { 'x-forwarded-for': '192.0.2.1' })).statusCode, 200, 'other accounts are not')
  const challenge = challengeOf(t, await call(app, 'v2/login', LOGIN, { 'x-forwarded-for': '192.0.2.1' }))
  t.equal((await call(app, 'v2/login', LOGIN, { 'x-forwarded-for': '192.0.2.1', [CHALLENGE_HEADER]: await solvedHeader(challenge) })).statusCode, 200)
  t.equal((await call(app, 'v2/login', LOGIN, { 'x-forwarded-for': '192.0.2.1' })).statusCode, 200, 'the success cleared the account')
})

t.test('a guarded call the backend sheds (its JSON 503) counts toward the burst; the edge\'s own 503 and a gateway\'s page count nothing', async (t) => {
  const env = { CHALLENGE_BURST_FAILURES: '3', EDGE_SECRET, TRUST_PROXY: 'loopback' }
  const busy = await startUpstream(t, jsonAnswer(503, { error: 'Too many sign-ins right now.' }, { 'retry-after': '1' }))
  const shedding = await buildEdge(t, { env, accountsUpstream: busy.url, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  const from = (i: number) => ({ 'x-forwarded-for': `2001:db8:${i.toString(16)}::1` })
  for (const [i, path] of (['v2/login', 'register', 'resetPasswordRequest'] as const).entries()) {
    t.equal((await call(shedding, path, { email: `u${i}@example.com`, password: 'long enough password' }, from(i))).statusCode, 503, `${path}: shed`)
  }
  challengeOf(t, await call(shedding, 'v2/login', LOGIN, from(9)))
  t.equal(calls(busy).length, 3, 'the fourth is asked for work before the backend is')

  const gateway = await startUpstream(t, (_request, response) => { response.writeHead(503, { 'content-type': 'text/html' }).end('<h1>503</h1>') })
  for (const [what, upstream] of [['unreachable', DEAD_UPSTREAM], ['a gateway\'s HTML page', gateway.url]] as const) {
    const edge = await buildEdge(t, { env, accountsUpstream: upstream, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
    for (let i = 0; i < 5; i++) t.equal((await call(edge, 'v2/login', LOGIN, from(i))).statusCode, 503, `${what}: the edge's own 503`)
  }
})

t.test('a form posted without scripts, when a challenge is asked for, says the check needs scripts, keeps the email and never the password', async (t) => {
  const { app, upstream } = await edgeWith(t, { ...ALWAYS, TRUST_PROXY: 'loopback' })
  for (const [form, fields, view] of [
    ['login', { email: 'ada@example.com', password: 'secret password 1' }, 'login'],
    ['register', { email: 'ada@example.com', password: 'secret password 1', confirm_password: 'secret password 1' }, 'register'],
    ['resetPassword', { email: 'ada@example.com' }, 'resetPassword'],
    ['verificationLink', { email: 'ada@example.com' }, 'login']
  ] as const) {
    const posted = await app.inject({ method: 'POST', url: '/', headers: PAGE_POST_HEADERS, payload: formBody({ form, ...fields }) })
    // A login's page comes after its 303 (post/redirect/get); the others' at once.
    const response = posted.statusCode === 303 ? await followFlash(app, posted) : posted
    t.equal(response.statusCode, 428, `${form}: the page says why with its status`)
    const state = stateIn(response.body)
    t.equal(state.view, view)
    t.equal(state.email, 'ada@example.com', 'the email is kept')
    t.equal(state.notice?.text, englishCatalogue['server.challengeNeedsScripts'])
    t.notOk(response.body.includes('secret password 1'), 'the password is never written back')
  }
  t.equal(calls(upstream).length, 0)
})

t.test('the provider adapter: the widget\'s token is checked at siteverify with the secret and the client\'s address; no, unreachable and garbage all refuse', async (t) => {
  const seen: URLSearchParams[] = []
  // inject's requests name the host localhost; without ALLOWED_HOSTS the token must have been solved there.
  let verdict: unknown = { success: true, hostname: 'localhost' }
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a failure here is an unhandled rejection, which fails the test file
  const fake = createServer(async (request: IncomingMessage, response) => {
    let text = ''
    for await (const chunk of request) text += String(chunk)
    seen.push(new URLSearchParams(text))
    const body = typeof verdict === 'string' ? verdict : JSON.stringify(verdict)
    response.writeHead(200, { 'content-type': 'application/json' }).end(body)
  })
  fake.listen(0, '127.0.0.1')
  await once(fake, 'listening')
  t.teardown(() => { fake.closeAllConnections(); fake.close() })
  const verifyUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/siteverify`
  const { app, upstream, metrics } = await edgeWith(t, { ...ALWAYS, CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: '0x4AAAAAAAtest', CHALLENGE_SECRET: 'provider-secret', CHALLENGE_VERIFY_URL: verifyUrl })

  const asked = await call(app, 'register', { email: 'ada@example.com', password: 'long enough password' })
  t.equal(asked.statusCode, 428)
  t.same((asked.json<{ challenge: unknown }>()).challenge, { kind: 'turnstile', siteKey: '0x4AAAAAAAtest' })

  const passed = await call(app, 'register', { email: 'ada@example.com', password: 'long enough password' }, { [CHALLENGE_HEADER]: 'token-1' })
  t.equal(passed.statusCode, 200)
  t.equal(seen[0]!.get('secret'), 'provider-secret')
  t.equal(seen[0]!.get('response'), 'token-1')
  t.equal(seen[0]!.get('remoteip'), '203.0.113.7')
  t.notOk(CHALLENGE_HEADER in calls(upstream)[0]!.headers)

  verdict = { success: false, 'error-codes': ['invalid-input-response'] }
  t.equal((await call(app, 'register', { email: 'ada@example.com' }, { [CHALLENGE_HEADER]: 'token-2' })).statusCode, 428)
  verdict = 'not json'
  t.equal((await call(app, 'register', { email: 'ada@example.com' }, { [CHALLENGE_HEADER]: 'token-3' })).statusCode, 428)
  t.equal((await call(app, 'register', { email: 'ada@example.com' }, { [CHALLENGE_HEADER]: 'bad token\u0001' })).statusCode, 428, 'a token that is not one is not sent on')
  t.equal(seen.length, 3)
  t.equal(calls(upstream).length, 1)
  t.match(await metrics.text(), /outcome="refused_refused"\} 2/)
  t.match(await metrics.text(), /outcome="refused_unverified"\} 1/)
})

t.test('attack: a provider token solved on another site (the operator\'s public site key on an attacker\'s page) is refused by the answer\'s hostname; an oversized answer is not read', async (t) => {
  let verdict = ''
  const fake = createServer((_request, response) => { response.writeHead(200, { 'content-type': 'application/json' }).end(verdict) })
  fake.listen(0, '127.0.0.1')
  await once(fake, 'listening')
  t.teardown(() => { fake.closeAllConnections(); fake.close() })
  const provider = { CHALLENGE: 'hcaptcha', CHALLENGE_SITE_KEY: 'site-key', CHALLENGE_SECRET: 'provider-secret', CHALLENGE_VERIFY_URL: `http://localhost:${(fake.address() as AddressInfo).port}/siteverify` }
  const register = (app: FastifyInstance, token: string, host = 'sign-in.example.com') =>
    app.inject({ method: 'POST', url: '/accounts/register', headers: { host, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', [CHALLENGE_HEADER]: token }, payload: JSON.stringify({ email: 'ada@example.com', password: 'long enough password' }) })

  const served = await edgeWith(t, { ...ALWAYS, ...provider, ALLOWED_HOSTS: 'sign-in.example.com,login.example.org' })
  for (const [hostname, status, why] of [
    ['attacker.example', 428, 'solved on the attacker\'s page'],
    ['sign-in.example.com.attacker.example', 428, 'a name that only begins like the served host'],
    [42, 428, 'a hostname that is not a string'],
    [undefined, 428, 'no hostname at all'],
    ['SIGN-IN.example.com', 200, 'a served host, in any case'],
    ['login.example.org', 200, 'another served host']
  ] as const) {
    verdict = JSON.stringify({ success: true, ...(hostname === undefined ? {} : { hostname }) })
    t.equal((await register(served.app, `token-${String(hostname)}`)).statusCode, status, why)
  }
  t.match(await served.metrics.text(), /outcome="refused_mismatch"\} 4/)
  t.equal(calls(served.upstream).length, 2)

  const anyHost = await edgeWith(t, { ...ALWAYS, ...provider })
  verdict = JSON.stringify({ success: true, hostname: 'sign-in.example.com' })
  t.equal((await register(anyHost.app, 'token-a', 'sign-in.example.com')).statusCode, 200, 'without ALLOWED_HOSTS: the host the call names')
  t.equal((await register(anyHost.app, 'token-b', 'other.example.com')).statusCode, 428, 'a token solved for another host the edge answers for')

  verdict = JSON.stringify({ success: true, hostname: 'sign-in.example.com', padding: 'x'.repeat(PROVIDER_ANSWER_LIMIT_BYTES) })
  t.equal((await register(anyHost.app, 'token-c', 'sign-in.example.com')).statusCode, 428, 'an answer over the limit is not one')
  t.match(await anyHost.metrics.text(), /outcome="refused_unverified"\} 1/)
})

t.test('configuration: bad values are refused naming the variable', async (t) => {
  const { loadServerConfig, ConfigError } = await import('../../../../server/edge/config.js')
  const refusals: Array<[Record<string, string>, RegExp]> = [
    [{ CHALLENGE: 'recaptcha' }, /CHALLENGE must be pow, turnstile, hcaptcha or off/],
    [{ CHALLENGE_RANGE_FAILURES: '-1' }, /CHALLENGE_RANGE_FAILURES must be a whole number/],
    [{ CHALLENGE_ACCOUNT_FAILURES: 'many' }, /CHALLENGE_ACCOUNT_FAILURES must be a whole number/],
    [{ CHALLENGE_BURST_FAILURES: '1.5' }, /CHALLENGE_BURST_FAILURES must be a whole number/],
    [{ EDGE_SECRET: 'short' }, /EDGE_SECRET must be at least 32 characters/],
    [{ CHALLENGE: 'turnstile', CHALLENGE_SECRET: 's' }, /CHALLENGE_SITE_KEY is required with CHALLENGE=turnstile/],
    [{ CHALLENGE: 'hcaptcha', CHALLENGE_SITE_KEY: 'k' }, /CHALLENGE_SECRET is required with CHALLENGE=hcaptcha/],
    [{ CHALLENGE_SITE_KEY: 'k' }, /CHALLENGE_SITE_KEY is set but CHALLENGE is pow/],
    [{ CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: 'k', CHALLENGE_SECRET: 's', CHALLENGE_VERIFY_URL: 'ftp://x' }, /CHALLENGE_VERIFY_URL must use http or https/],
    [{ CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: 'k', CHALLENGE_SECRET: 's', CHALLENGE_VERIFY_URL: 'http://verify.example.com/siteverify' }, /CHALLENGE_VERIFY_URL must use https \(plain http only on this machine/],
    [{ REDIS_URL: 'redis://cache.internal:6379' }, /^EDGE_SECRET is required with REDIS_URL: .* name clients and accounts only by keyed hashes under it, and instances accept each other's challenges only with it$/],
    [{ REDIS_URL: 'redis://cache.internal:6379', CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: 'k', CHALLENGE_SECRET: 's' }, /^EDGE_SECRET is required with REDIS_URL: .*challenges only with it$/],
    [{ REDIS_URL: 'redis://cache.internal:6379', CHALLENGE: 'off' }, /^EDGE_SECRET is required with REDIS_URL: .* the shared counts name clients only by keyed hashes under it$/]
  ]
  for (const [env, message] of refusals) {
    t.throws(() => loadServerConfig(env), ConfigError, JSON.stringify(env))
    t.throws(() => loadServerConfig(env), { message }, JSON.stringify(env))
  }
  const defaults = loadServerConfig({}).challenge
  t.same({ ...defaults }, { kind: 'pow', rangeFailures: 10, accountFailures: 5, burstFailures: 100, edgeSecret: null, provider: null })
  t.equal(loadServerConfig({ CHALLENGE: 'hcaptcha', CHALLENGE_SITE_KEY: 'k', CHALLENGE_SECRET: 's' }).challenge.provider?.verifyUrl, 'https://api.hcaptcha.com/siteverify')
  for (const local of ['http://localhost:8080/siteverify', 'http://127.0.0.1/siteverify', 'http://[::1]:9/siteverify']) {
    t.equal(loadServerConfig({ CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: 'k', CHALLENGE_SECRET: 's', CHALLENGE_VERIFY_URL: local }).challenge.provider?.verifyUrl, local, 'plain http on this machine (a test\'s fake)')
  }
  t.equal(LEVEL_ONE_MAX_COUNTER, 600)
})

t.test('the page\'s CSP names a provider\'s origins only when one is configured, in script-src, frame-src and connect-src', async (t) => {
  const directives = (policy: string) => Object.fromEntries(policy.split(';').map((directive) => [directive.trim().split(' ')[0], directive.trim()]))
  const plain = await edgeWith(t, { EDGE_SECRET })
  const plainPolicy = String((await plain.app.inject({ method: 'GET', url: '/' })).headers['content-security-policy'])
  t.notMatch(plainPolicy, /cloudflare|hcaptcha/)
  const withTurnstile = await edgeWith(t, { CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: 'site', CHALLENGE_SECRET: 'secret' })
  const policy = directives(String((await withTurnstile.app.inject({ method: 'GET', url: '/' })).headers['content-security-policy']))
  for (const name of ['script-src', 'frame-src', 'connect-src']) t.match(policy[name], / https:\/\/challenges\.cloudflare\.com$/, name)
  t.notMatch(policy['default-src'], /cloudflare/)
  t.notMatch(policy['style-src'], /cloudflare/)
  const withHcaptcha = await edgeWith(t, { CHALLENGE: 'hcaptcha', CHALLENGE_SITE_KEY: 'site', CHALLENGE_SECRET: 'secret' })
  t.match(String((await withHcaptcha.app.inject({ method: 'GET', url: '/' })).headers['content-security-policy']), /frame-src [^;]*https:\/\/\*\.hcaptcha\.com/)
})

t.test('the logs name why a solution was refused, never the email, the password or the solution', async (t) => {
  const { lines, logger } = captureLog('debug')
  const { app } = await edgeWith(t, ALWAYS, logger)
  const header = await solvedHeader(challengeOf(t, await call(app, 'v2/login', LOGIN)))
  t.equal((await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: header })).statusCode, 200)
  challengeOf(t, await call(app, 'v2/login', LOGIN, { [CHALLENGE_HEADER]: header }))
  const refused = lines.filter((line) => line.msg === 'challenge refused')
  t.equal(refused.length, 1)
  t.match(refused[0], { reason: 'reused', level: 1 })
  const text = JSON.stringify(lines)
  t.notOk(text.includes('ada@example.com'), 'no email')
  t.notOk(text.includes(header.slice(0, 40)), 'no solution')
  t.notOk(text.includes('"right"'), 'no password')
})
