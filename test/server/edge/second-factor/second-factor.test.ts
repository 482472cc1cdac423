import t from 'tap'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { ConfigError, loadServerConfig } from '../../../../server/edge/config.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'

const JSON_HEADERS = { 'content-type': 'application/json' }
const SECOND_FACTOR_PATHS = ['second-factor/verify', 'second-factor/enrol/start', 'second-factor/enrol/confirm']
const OWN_BACKEND = { PUBLIC_URL: 'https://signin.example.com', ALLOWED_HOSTS: 'signin.example.com,localhost' }

t.test('SECOND_FACTOR: on with the embedded service, off with ACCOUNTS_URL unless told; a bad value is refused', async (t) => {
  t.same(loadServerConfig({}).secondFactor, { enabled: true, rememberBrowser: true })
  t.same(loadServerConfig({ ACCOUNTS_URL: 'https://accounts.internal' }).secondFactor, { enabled: false, rememberBrowser: true })
  t.same(loadServerConfig({ ACCOUNTS_URL: 'https://accounts.internal', SECOND_FACTOR: 'true' }).secondFactor, { enabled: true, rememberBrowser: true })
  t.same(loadServerConfig({ SECOND_FACTOR: 'false', SECOND_FACTOR_REMEMBER_BROWSER: 'false' }).secondFactor, { enabled: false, rememberBrowser: false })
  t.throws(() => loadServerConfig({ SECOND_FACTOR: 'maybe' }), ConfigError)
  t.throws(() => loadServerConfig({ SECOND_FACTOR_REMEMBER_BROWSER: 'yes please' }), ConfigError)
})

t.test('with an own backend the three calls are proxied only once SECOND_FACTOR is true', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const off = await buildEdge(t, { accountsUpstream: upstream.url, env: { ...OWN_BACKEND, ACCOUNTS_URL: upstream.url } })
  for (const path of SECOND_FACTOR_PATHS) {
    const answer = await off.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, host: 'signin.example.com' }, payload: '{}' })
    t.equal(answer.statusCode, 404, `${path} without SECOND_FACTOR`)
  }
  t.equal(upstream.requests.length, 0)
  const on = await buildEdge(t, { accountsUpstream: upstream.url, env: { ...OWN_BACKEND, ACCOUNTS_URL: upstream.url, SECOND_FACTOR: 'true' } })
  for (const path of SECOND_FACTOR_PATHS) {
    const answer = await on.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, host: 'signin.example.com' }, payload: '{}' })
    t.equal(answer.statusCode, 200, `${path} with SECOND_FACTOR=true`)
    t.equal(upstream.requests.at(-1)?.url, `/${path}`)
  }
})

t.test('Authorization reaches the service on the enrolment calls; second_factor_browser on the sign-in calls and verify alone', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: OWN_BACKEND })
  const cookie = 'session=s; second_factor_browser=123.mac; threshold_browser=b.mac; auth=eyJ.a.b; second_factor_browserx=1'
  for (const path of [...SECOND_FACTOR_PATHS, 'v2/login', 'v2/auth/login', 'register', 'passkeys/login', 'token/refresh']) {
    await app.inject({
      method: 'POST',
      url: `/accounts/${path}`,
      headers: { ...JSON_HEADERS, host: 'signin.example.com', authorization: 'Bearer auth.token.here', cookie },
      payload: '{}'
    })
    const seen = upstream.requests.at(-1)!
    const bearer = path.startsWith('second-factor/enrol/') || path === 'v2/auth/login'
    t.equal(seen.headers.authorization, bearer ? 'Bearer auth.token.here' : undefined, `${path}: Authorization ${bearer ? 'passed on' : 'dropped'}`)
    const remembered = ['v2/login', 'v2/auth/login', 'second-factor/verify'].includes(path)
    t.equal(seen.headers.cookie, remembered ? 'second_factor_browser=123.mac; threshold_browser=b.mac' : 'threshold_browser=b.mac',
      `${path}: second_factor_browser ${remembered ? 'passed on' : 'dropped'}`)
  }
})

t.test('the OpenID Connect step-up mark (oidc_step_up) reaches the service on the two sign-in calls alone', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: OWN_BACKEND })
  const cookie = 'oidc_step_up=1795888000.mac; threshold_browser=b.mac; oidc_step_upx=1'
  for (const path of [...SECOND_FACTOR_PATHS, 'v2/login', 'v2/auth/login', 'register', 'passkeys/login', 'token/refresh']) {
    await app.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, host: 'signin.example.com', cookie }, payload: '{}' })
    const signIn = path === 'v2/login' || path === 'v2/auth/login'
    t.equal(upstream.requests.at(-1)!.headers.cookie, signIn ? 'oidc_step_up=1795888000.mac; threshold_browser=b.mac' : 'threshold_browser=b.mac',
      `${path}: oidc_step_up ${signIn ? 'passed on' : 'dropped'}`)
  }
})

t.test('a second-factor call from another site is refused before it reaches the service', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: OWN_BACKEND })
  const answer = await app.inject({
    method: 'POST',
    url: '/accounts/second-factor/verify',
    headers: { ...JSON_HEADERS, host: 'signin.example.com', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    payload: '{}'
  })
  t.equal(answer.statusCode, 403)
  t.equal(upstream.requests.length, 0)
})

t.test('the page learns secondFactor and secondFactorRememberBrowser', async (t) => {
  const configIn = async (env: Record<string, string>) => {
    const app = await buildEdge(t, { env })
    const html = (await app.inject({ url: '/', headers: { host: 'signin.example.com' } })).body
    return parseRuntimeConfig(/<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1])
  }
  const embedded = await configIn(OWN_BACKEND)
  t.same([embedded.secondFactor, embedded.secondFactorRememberBrowser], [true, true])
  const own = await configIn({ ...OWN_BACKEND, ACCOUNTS_URL: 'https://accounts.internal' })
  t.same([own.secondFactor, own.secondFactorRememberBrowser], [false, true])
  const noRemember = await configIn({ ...OWN_BACKEND, SECOND_FACTOR_REMEMBER_BROWSER: 'false' })
  t.same([noRemember.secondFactor, noRemember.secondFactorRememberBrowser], [true, false])
})
