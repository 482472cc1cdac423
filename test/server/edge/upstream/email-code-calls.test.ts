import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { CHALLENGE_HEADER } from '../../../../common/challenge/challenge.js'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import { ConfigError, loadServerConfig } from '../../../../server/edge/config.js'
import { createEdgeMetrics } from '../../../../server/edge/metrics/metrics.js'
import { CheckDomainAuthorizationResponse } from '../../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { DATA_FRAME, encodeFrame, encodeTrailers } from '../../../../server/shared/domain-check/grpc-web-frames.js'
import { solvedHeader } from '../../../fixtures/challenge/challenge.js'
import {
  EMAIL_CODE_BROWSER_COOKIE, emailCodeStandIn, STAND_IN_CODE, STAND_IN_SENT, STAND_IN_TOKENS
} from '../../../fixtures/email-codes/email-code-stand-in.js'
import { injectJson } from '../../../fixtures/http/post-json.js'
import { buildEdge, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'

/*
 * The emailed code's two calls through the real edge to a stand-in accounts
 * service on a loopback port (docs/email-codes.md): the binding cookie goes
 * up and comes back, the sign-in's tokens are handled as a password login's,
 * and the edge's guards (domain check, challenge, rate limit, metrics) treat
 * both calls as they treat the login.
 */

const EDGE_SECRET = 'a test edge secret of at least thirty-two characters'
const BASE_ENV = { EDGE_SECRET, TRUST_PROXY: 'loopback', CHALLENGE: 'off', RATE_LIMIT_PER_MINUTE: '1000' }
const ADA = 'ada@example.com'

async function edgeWith (t: Test, env: Record<string, string> = {}, extra: { edgeAuthUpstream?: string } = {}) {
  const standIn = emailCodeStandIn()
  const upstream = await startUpstream(t, standIn.handler)
  const metrics = createEdgeMetrics({ version: '0.0.0-test', processMetrics: false })
  const app = await buildEdge(t, { env: { METRICS_PORT: '0', ...BASE_ENV, ...env }, accountsUpstream: upstream.url, metrics, ...extra })
  return { app, upstream, standIn, metrics }
}

/** A call from the page, from one address unless `headers` names another. */
function call (app: Awaited<ReturnType<typeof edgeWith>>['app'], path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return injectJson(app, `/accounts/${path}`, body, { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': '203.0.113.7', ...headers })
}

function setCookies (response: { headers: Record<string, unknown> }): string[] {
  const value = response.headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value as string[] : [value as string]
}

/** The `name=value` pair of the answer's Set-Cookie for `name`. */
function cookiePair (response: { headers: Record<string, unknown> }, name: string): string | undefined {
  return setCookies(response).find((line) => line.startsWith(`${name}=`))?.split(';', 1)[0]
}

const calls = (upstream: { requests: RecordedRequest[] }, path: string): RecordedRequest[] => upstream.requests.filter((request) => request.url === path)

t.test('the binding cookie is set by the send, goes up with the sign-in and no other cookie of the browser goes with it', async (t) => {
  const { app, upstream, standIn } = await edgeWith(t)
  const sent = await call(app, 'email-code/send', { email: ADA }, { cookie: 'auth=stale; tracking=someone-else' })
  t.equal(sent.statusCode, 200)
  t.same(sent.json(), { success: STAND_IN_SENT, expires_in: 600 })
  const binding = cookiePair(sent, EMAIL_CODE_BROWSER_COOKIE)
  t.equal(binding, `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]}`, 'the service\'s Set-Cookie comes back to the browser')
  t.ok(setCookies(sent)[0]?.includes('HttpOnly'), 'as the service wrote it')

  const signedIn = await call(app, 'email-code/login', { email: ADA, code: STAND_IN_CODE }, { cookie: `${binding!}; tracking=someone-else; auth=stale` })
  t.equal(signedIn.statusCode, 200)
  t.equal(calls(upstream, '/email-code/login')[0]?.headers.cookie, binding, 'the binding alone: the other cookies are none of the service\'s business')
})

t.test('attack: a sign-in from a browser without the binding (a phishing page\'s relay of the code alone) is refused, and a password login never carries the binding', async (t) => {
  const { app, upstream } = await edgeWith(t)
  const sent = await call(app, 'email-code/send', { email: ADA })
  const binding = cookiePair(sent, EMAIL_CODE_BROWSER_COOKIE)!
  const elsewhere = await call(app, 'email-code/login', { email: ADA, code: STAND_IN_CODE }, { 'x-forwarded-for': '198.51.100.9' })
  t.equal(elsewhere.statusCode, 401)
  t.equal(elsewhere.json<{ reason: string }>().reason, 'code_other_browser')
  t.equal(cookiePair(elsewhere, 'refresh'), undefined, 'no token cookie')

  await call(app, 'v2/login', { email: ADA, password: 'x' }, { cookie: binding })
  t.equal(calls(upstream, '/v2/login')[0]?.headers.cookie, undefined, 'the binding is the emailed code\'s calls\' alone')
})

t.test('the code\'s sign-in answer is handled as a password login\'s: the refresh token only in the HttpOnly cookie, auth set, the binding cleared', async (t) => {
  const { app, standIn } = await edgeWith(t)
  for (const answer of ['tokens', 'registered'] as const) {
    standIn.answer = answer
    const binding = cookiePair(await call(app, 'email-code/send', { email: ADA }), EMAIL_CODE_BROWSER_COOKIE)!
    const signedIn = await call(app, 'email-code/login', { email: ADA, code: 'abcd-2345' }, { cookie: binding })
    t.equal(signedIn.statusCode, 200, answer)
    const body = signedIn.json<Record<string, unknown>>()
    t.equal(body.refresh, undefined, `${answer}: no script sees the refresh token`)
    t.equal(body.auth, STAND_IN_TOKENS.auth)
    if (answer === 'registered') t.equal(body.registered, true, 'the service\'s other fields are kept')
    const refresh = setCookies(signedIn).find((line) => line.startsWith('refresh='))
    t.ok(refresh?.startsWith(`refresh=${STAND_IN_TOKENS.refresh};`) === true && refresh.includes('HttpOnly'), 'the refresh cookie, HttpOnly')
    t.ok(setCookies(signedIn).some((line) => line.startsWith(`${EMAIL_CODE_BROWSER_COOKIE}=;`)), 'the service\'s clearing of the binding passes too')
  }
})

t.test('sign-ins with a code are counted with the method email_code; asking for one is not a sign-in', async (t) => {
  const { app, standIn, metrics } = await edgeWith(t)
  const binding = cookiePair(await call(app, 'email-code/send', { email: ADA }), EMAIL_CODE_BROWSER_COOKIE)!
  t.equal((await call(app, 'email-code/login', { email: ADA, code: 'WRONG234' }, { cookie: binding })).statusCode, 401)
  t.equal((await call(app, 'email-code/login', { email: ADA, code: STAND_IN_CODE }, { cookie: binding })).statusCode, 200)
  standIn.answer = 'second-factor'
  t.equal((await call(app, 'email-code/login', { email: ADA, code: STAND_IN_CODE }, { cookie: binding })).statusCode, 200)
  const text = await metrics.text()
  const count = (outcome: string): number => Number(new RegExp(`threshold_sign_ins_total\\{method="email_code",outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0)
  t.equal(count('success'), 1)
  t.equal(count('refused'), 1)
  t.equal(count('second_factor_required'), 1, 'an emailed code is one factor: the account\'s second still applies')
  t.notMatch(text, /method="[^"]*"[^\n]*ada@|ABCD2345|WRONG234/, 'no address or code in the scrape')
})

/** A gRPC-web domain-check service answering `authorization` (2: UNAUTHORIZED). */
function domainCheckAnswer (authorization: number) {
  return (_request: RecordedRequest, response: ServerResponse): void => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(authorization).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeTrailers(0)]))
  }
}

t.test('DOMAIN_CHECK_ENFORCED: an unauthorised domain gets no code and cannot sign in with one; the service is never called', async (t) => {
  const domainService = await startUpstream(t, domainCheckAnswer(2))
  const { app, upstream } = await edgeWith(t, { DOMAIN_CHECK_ENFORCED: 'true' }, { edgeAuthUpstream: domainService.url })
  for (const [path, body] of [['email-code/send', { email: ADA }], ['email-code/login', { email: ADA, code: STAND_IN_CODE }]] as const) {
    const refused = await call(app, path, body)
    t.equal(refused.statusCode, 403, path)
    t.equal(refused.json<{ error: string }>().error, englishCatalogue['error.DOMAIN_NOT_AUTHORIZED'])
  }
  t.equal(upstream.requests.length, 0)
  t.equal(domainService.requests.length, 2, 'one check per call')
})

t.test('attack: a storm of code requests at one address raises the challenge for that address from any range', async (t) => {
  const { app, upstream } = await edgeWith(t, { CHALLENGE: 'pow', CHALLENGE_ACCOUNT_FAILURES: '3' })
  for (let i = 0; i < 3; i++) t.equal((await call(app, 'email-code/send', { email: ADA }, { 'x-forwarded-for': `198.51.${i}.1` })).statusCode, 200)
  const asked = await call(app, 'email-code/send', { email: ADA }, { 'x-forwarded-for': '192.0.2.1' })
  t.equal(asked.statusCode, 428, 'the fourth asks for work first')
  t.equal(calls(upstream, '/email-code/send').length, 3, 'and the service sends nothing more')
  t.equal((await call(app, 'email-code/send', { email: 'bob@example.com' }, { 'x-forwarded-for': '192.0.2.1' })).statusCode, 200, 'other addresses are not')
  const solved = await call(app, 'email-code/send', { email: ADA }, { 'x-forwarded-for': '192.0.2.1', [CHALLENGE_HEADER]: await solvedHeader(asked.json<{ challenge: { challenge: Record<string, unknown> } }>().challenge.challenge) })
  t.equal(solved.statusCode, 200, 'solved, the send goes on')
})

t.test('attack: wrong codes count toward the address as failed logins do; a right code clears the count', async (t) => {
  const { app } = await edgeWith(t, { CHALLENGE: 'pow', CHALLENGE_ACCOUNT_FAILURES: '3', CHALLENGE_RANGE_FAILURES: '100' })
  // The send counts once, as an attempt; two wrong codes bring the address to its threshold.
  const binding = cookiePair(await call(app, 'email-code/send', { email: ADA }), EMAIL_CODE_BROWSER_COOKIE)!
  for (let i = 0; i < 2; i++) t.equal((await call(app, 'email-code/login', { email: ADA, code: `WRONG${i}23` }, { cookie: binding, 'x-forwarded-for': `198.51.${i}.1` })).statusCode, 401)
  const asked = await call(app, 'email-code/login', { email: ADA, code: STAND_IN_CODE }, { cookie: binding, 'x-forwarded-for': '192.0.2.1' })
  t.equal(asked.statusCode, 428, 'the guess after them needs work first')
  const header = await solvedHeader(asked.json<{ challenge: { challenge: Record<string, unknown> } }>().challenge.challenge)
  t.equal((await call(app, 'email-code/login', { email: ADA, code: STAND_IN_CODE }, { cookie: binding, 'x-forwarded-for': '192.0.2.1', [CHALLENGE_HEADER]: header })).statusCode, 200)
  t.equal((await call(app, 'email-code/send', { email: ADA }, { 'x-forwarded-for': '192.0.2.1' })).statusCode, 200, 'the sign-in cleared the address')
})

t.test('the calls share the login\'s rate limit per client address', async (t) => {
  const { app, upstream } = await edgeWith(t, { RATE_LIMIT_PER_MINUTE: '3' })
  const statuses = []
  for (const path of ['v2/login', 'email-code/send', 'email-code/login', 'email-code/send']) statuses.push((await call(app, path, { email: ADA, code: STAND_IN_CODE, password: 'x' })).statusCode)
  t.same(statuses.slice(0, 3).map((status) => status === 429), [false, false, false])
  t.equal(statuses[3], 429, 'the fourth call of the minute, whatever it is, is refused')
  t.equal(upstream.requests.length, 3)
})

t.test('with EMAIL_CODES=false the calls are not proxied at all', async (t) => {
  const { app, upstream } = await edgeWith(t, { EMAIL_CODES: 'false' })
  t.equal((await call(app, 'email-code/send', { email: ADA })).statusCode, 404)
  t.equal((await call(app, 'email-code/login', { email: ADA, code: STAND_IN_CODE })).statusCode, 404)
  t.equal(upstream.requests.length, 0)
})

t.test('EMAIL_CODES: on with the embedded service, off with ACCOUNTS_URL unless told; a bad value is refused naming it', async (t) => {
  t.same(loadServerConfig({}).emailCodes, { enabled: true })
  t.same(loadServerConfig({ ACCOUNTS_URL: 'https://accounts.internal' }).emailCodes, { enabled: false })
  t.same(loadServerConfig({ ACCOUNTS_URL: 'https://accounts.internal', EMAIL_CODES: 'true' }).emailCodes, { enabled: true })
  t.same(loadServerConfig({ EMAIL_CODES: 'false' }).emailCodes, { enabled: false })
  t.throws(() => loadServerConfig({ EMAIL_CODES: 'maybe' }), ConfigError)
  t.throws(() => loadServerConfig({ EMAIL_CODES: 'maybe' }), /EMAIL_CODES/, 'the message names the variable')
})
