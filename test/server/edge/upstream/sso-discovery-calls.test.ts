import t, { type Test } from 'tap'
import { ConfigError, loadServerConfig } from '../../../../server/edge/config.js'
import { loadReferenceConfig } from '../../../../server/reference/config.js'
import { injectJson } from '../../../fixtures/http/post-json.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'

/*
 * SSO_DISCOVERY's call through the real edge to a stand-in accounts service
 * on a loopback port (docs/sso.md, "Found by the address"): proxied only when
 * on, guarded and rate limited as the login is, and the page told.
 */

const BASE_ENV = { TRUST_PROXY: 'loopback', CHALLENGE: 'off', RATE_LIMIT_PER_MINUTE: '1000' }
const ANSWER = { sso: true, required: false }

async function edgeWith (t: Test, env: Record<string, string> = {}) {
  const upstream = await startUpstream(t, jsonAnswer(200, ANSWER))
  const app = await buildEdge(t, { env: { ...BASE_ENV, ...env }, accountsUpstream: upstream.url })
  return { app, upstream }
}

function discover (app: Awaited<ReturnType<typeof edgeWith>>['app'], body: unknown, headers: Record<string, string> = {}) {
  return injectJson(app, '/accounts/auth/sso/discover', body, { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': '203.0.113.7', ...headers })
}

function embeddedConfig (html: string): Record<string, unknown> {
  const json = /<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1]
  return JSON.parse(json ?? 'null') as Record<string, unknown>
}

t.test('with SSO_DISCOVERY=true the call is passed on as the page sends it, and its answer comes back', async (t) => {
  const { app, upstream } = await edgeWith(t, { SSO_DISCOVERY: 'true' })
  const answer = await discover(app, { email: 'ada@corp.example' })
  t.equal(answer.statusCode, 200)
  t.same(answer.json(), ANSWER)
  t.equal(upstream.requests.length, 1)
  t.equal(upstream.requests[0]!.url, '/auth/sso/discover')
  t.same(JSON.parse(upstream.requests[0]!.body.toString('utf8')), { email: 'ada@corp.example' })
})

t.test('the call shares the login\'s rate limit per client address', async (t) => {
  const { app, upstream } = await edgeWith(t, { SSO_DISCOVERY: 'true', RATE_LIMIT_PER_MINUTE: '3' })
  const statuses = [
    (await discover(app, { email: 'ada@corp.example' })).statusCode,
    (await injectJson(app, '/accounts/v2/login', { email: 'ada@corp.example', password: 'x' }, { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': '203.0.113.7' })).statusCode,
    (await discover(app, { email: 'bob@corp.example' })).statusCode,
    (await discover(app, { email: 'cid@corp.example' })).statusCode
  ]
  t.same(statuses.slice(0, 3).map((status) => status === 429), [false, false, false])
  t.equal(statuses[3], 429, 'the fourth call of the minute, whatever it is, is refused')
  t.equal((await discover(app, { email: 'ada@corp.example' }, { 'x-forwarded-for': '198.51.100.9' })).statusCode, 200, 'another address has its own allowance')
  t.equal(upstream.requests.length, 4)
})

t.test('attack: another site cannot ask through a visitor\'s browser, nor send anything but JSON', async (t) => {
  const { app, upstream } = await edgeWith(t, { SSO_DISCOVERY: 'true' })
  const crossSite = await discover(app, { email: 'ada@corp.example' }, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })
  t.equal(crossSite.statusCode, 403)
  const form = await app.inject({ method: 'POST', url: '/accounts/auth/sso/discover', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, payload: 'email=ada%40corp.example' })
  t.equal(form.statusCode, 415)
  t.equal(upstream.requests.length, 0)
})

t.test('with SSO_DISCOVERY off (the default) the call is not proxied at all, and the page is not told', async (t) => {
  const { app, upstream } = await edgeWith(t)
  t.equal((await discover(app, { email: 'ada@corp.example' })).statusCode, 404)
  t.equal(upstream.requests.length, 0)
  t.notOk('ssoDiscovery' in embeddedConfig((await app.inject({ url: '/' })).body), 'the page\'s configuration leaves the default out')
})

t.test('with SSO_DISCOVERY on the page is told', async (t) => {
  const { app } = await edgeWith(t, { SSO_DISCOVERY: 'true' })
  t.equal(embeddedConfig((await app.inject({ url: '/' })).body).ssoDiscovery, true)
})

t.test('SSO_DISCOVERY: off by default for the edge and the service alike, with or without ACCOUNTS_URL; a bad value is refused naming it', async (t) => {
  t.equal(loadServerConfig({}).ssoDiscovery, false)
  t.equal(loadServerConfig({ SSO_DISCOVERY: 'true' }).ssoDiscovery, true)
  t.equal(loadServerConfig({ ACCOUNTS_URL: 'https://accounts.internal', SSO_DISCOVERY: 'true' }).ssoDiscovery, true)
  t.equal(loadReferenceConfig({}, 8080).ssoDiscovery, false)
  t.equal(loadReferenceConfig({ SSO_DISCOVERY: 'TRUE' }, 8080).ssoDiscovery, true)
  t.throws(() => loadServerConfig({ SSO_DISCOVERY: 'yes' }), ConfigError)
  t.throws(() => loadServerConfig({ SSO_DISCOVERY: 'yes' }), /SSO_DISCOVERY/, 'the message names the variable')
  t.throws(() => loadReferenceConfig({ SSO_DISCOVERY: '1' }, 8080), /SSO_DISCOVERY/)
})
