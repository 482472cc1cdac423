import t from 'tap'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'

const JSON_HEADERS = { 'content-type': 'application/json' }
const PASSKEY_PATHS = ['passkeys/login/options', 'passkeys/login', 'passkeys/register/options', 'passkeys/register']
const OWN_BACKEND = { PUBLIC_URL: 'https://signin.example.com', ALLOWED_HOSTS: 'signin.example.com,localhost' }

t.test('with an own backend the passkey calls and token/revoke are proxied only once PASSKEYS is true', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { options: {} }))
  const off = await buildEdge(t, { accountsUpstream: upstream.url, env: { ...OWN_BACKEND, ACCOUNTS_URL: upstream.url } })
  for (const path of [...PASSKEY_PATHS, 'token/revoke']) {
    const answer = await off.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, host: 'signin.example.com' }, payload: '{}' })
    t.equal(answer.statusCode, 404, `${path} without PASSKEYS`)
  }
  t.equal(upstream.requests.length, 0)

  const on = await buildEdge(t, { accountsUpstream: upstream.url, env: { ...OWN_BACKEND, ACCOUNTS_URL: upstream.url, PASSKEYS: 'true' } })
  for (const path of [...PASSKEY_PATHS, 'token/revoke']) {
    const answer = await on.inject({ method: 'POST', url: `/accounts/${path}`, headers: { ...JSON_HEADERS, host: 'signin.example.com' }, payload: '{"refresh":"r"}' })
    t.equal(answer.statusCode, 200, `${path} with PASSKEYS=true`)
    t.equal(upstream.requests.at(-1)?.url, `/${path}`)
  }
  const get = await on.inject({ method: 'GET', url: '/accounts/passkeys/login', headers: { host: 'signin.example.com' } })
  t.equal(get.statusCode, 405, 'POST only')
})

t.test('Authorization reaches the service on the two registration calls; the challenge cookie on the four passkey calls alone', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: OWN_BACKEND })
  const cookie = 'session=s; passkey_challenge=binding; threshold_browser=b.mac; refresh=r1; auth=eyJ.a.b; passkey_challengex=1'
  for (const path of [...PASSKEY_PATHS, 'token/revoke', 'v2/login', 'auth/login/sso', 'v2/auth/login']) {
    await app.inject({
      method: 'POST',
      url: `/accounts/${path}`,
      headers: { ...JSON_HEADERS, host: 'signin.example.com', authorization: 'Bearer auth.token.here', cookie },
      payload: '{}'
    })
    const seen = upstream.requests.at(-1)!
    const bearer = path === 'passkeys/register/options' || path === 'passkeys/register' || path === 'v2/auth/login'
    t.equal(seen.headers.authorization, bearer ? 'Bearer auth.token.here' : undefined, `${path}: Authorization ${bearer ? 'passed on' : 'dropped'}`)
    const challenge = path.startsWith('passkeys/')
    t.equal(seen.headers.cookie, challenge ? 'passkey_challenge=binding; threshold_browser=b.mac; refresh=r1' : 'threshold_browser=b.mac; refresh=r1',
      `${path}: passkey_challenge ${challenge ? 'passed on' : 'dropped'}`)
  }
})

t.test('a passkey call from another site is refused before it reaches the service', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: OWN_BACKEND })
  const answer = await app.inject({
    method: 'POST',
    url: '/accounts/passkeys/login',
    headers: { ...JSON_HEADERS, host: 'signin.example.com', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    payload: '{}'
  })
  t.equal(answer.statusCode, 403)
  t.equal(upstream.requests.length, 0)
})

t.test('/.well-known/webauthn lists the page\'s origin and the related ones, only when there are related ones', async (t) => {
  const plain = await buildEdge(t, { env: OWN_BACKEND })
  t.equal((await plain.inject({ url: '/.well-known/webauthn', headers: { host: 'signin.example.com' } })).statusCode, 404)

  const related = await buildEdge(t, { env: { ...OWN_BACKEND, PASSKEY_RELATED_ORIGINS: 'https://login.example.org,https://signin.example.net' } })
  const answer = await related.inject({ url: '/.well-known/webauthn', headers: { host: 'signin.example.com' } })
  t.equal(answer.statusCode, 200)
  t.match(answer.headers['content-type'], /^application\/json/)
  t.same(answer.json(), { origins: ['https://signin.example.com', 'https://login.example.org', 'https://signin.example.net'] })
  t.equal((await related.inject({ method: 'POST', url: '/.well-known/webauthn', headers: { host: 'signin.example.com' } })).statusCode, 404)

  const off = await buildEdge(t, { env: { ...OWN_BACKEND, PASSKEYS: 'false', PASSKEY_RELATED_ORIGINS: 'https://login.example.org' } })
  t.equal((await off.inject({ url: '/.well-known/webauthn', headers: { host: 'signin.example.com' } })).statusCode, 404, 'nor with passkeys off')
})

t.test('the page learns the relying party ID, or null when passkeys are off', async (t) => {
  const configIn = async (env: Record<string, string>) => {
    const app = await buildEdge(t, { env })
    const html = (await app.inject({ url: '/', headers: { host: 'signin.example.com' } })).body
    return parseRuntimeConfig(/<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1])
  }
  t.equal((await configIn(OWN_BACKEND)).passkeyRpId, 'signin.example.com')
  t.equal((await configIn({ ...OWN_BACKEND, PASSKEY_RP_ID: 'example.com' })).passkeyRpId, 'example.com')
  t.equal((await configIn({ ...OWN_BACKEND, PASSKEYS: 'false' })).passkeyRpId, null)
  t.equal((await configIn({ ...OWN_BACKEND, ACCOUNTS_URL: 'https://accounts.internal' })).passkeyRpId, null)
})
