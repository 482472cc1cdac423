import Provider from 'oidc-provider'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { buildEdge } from '../../../fixtures/servers/edge.js'

const CLIENT = { id: 'partner-app', secret: 'a-partner-client-secret-that-is-long-enough-0123' }
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

/**
 * panva's oidc-provider on a loopback port, on the paths the embedded
 * provider uses (server/shared/oidc/provider-pages.ts), with one confidential
 * client allowed the client-credentials grant: the proxy is tested against
 * a real implementation's bodies, headers and CORS, not a stand-in's.
 */
async function startRealProvider (t: Test): Promise<string> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const provider = new Provider('https://signin.example.test', {
    clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }],
    routes: {
      authorization: '/oidc/auth',
      token: '/oidc/token',
      jwks: '/oidc/jwks',
      userinfo: '/oidc/me',
      revocation: '/oidc/token/revocation',
      introspection: '/oidc/token/introspection',
      end_session: '/oidc/session/end'
    },
    features: { clientCredentials: { enabled: true }, introspection: { enabled: true }, revocation: { enabled: true } },
    cookies: { keys: ['a-test-cookie-signing-key'] },
    // The embedded provider's own choice of origins is its concern; here every origin is let through.
    clientBasedCORS: () => true
  })
  provider.proxy = true
  const handle = provider.callback()
  server.on('request', (request, response) => { void handle(request, response) })
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

t.test('a real provider behind the edge: discovery, a token from another origin, its introspection, CORS', async (t) => {
  const app = await buildEdge(t, { accountsUpstream: await startRealProvider(t), embeddedSecret: 'secret' })
  const discovery = await app.inject({ method: 'GET', url: '/.well-known/openid-configuration', headers: { host: 'signin.example.test' } })
  t.equal(discovery.statusCode, 200)
  const metadata = discovery.json<{ issuer: string, token_endpoint: string }>()
  t.equal(metadata.issuer, 'https://signin.example.test')
  t.match(metadata.token_endpoint, /^https?:\/\/signin\.example\.test\/oidc\/token$/, 'on the page\'s host, as the edge states it')

  const preflight = await app.inject({
    method: 'OPTIONS', url: '/oidc/token',
    headers: { origin: 'https://app.partner.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' }
  })
  t.equal(preflight.statusCode, 204, 'the preflight is the provider\'s')
  t.ok(preflight.headers['access-control-allow-origin'], 'with its CORS headers')

  const token = await app.inject({
    method: 'POST', url: '/oidc/token', payload: 'grant_type=client_credentials',
    headers: { ...FORM, authorization: basic(CLIENT.id, CLIENT.secret), origin: 'https://app.partner.example', 'sec-fetch-site': 'cross-site' }
  })
  t.equal(token.statusCode, 200, token.body)
  t.equal(token.headers['access-control-allow-origin'], 'https://app.partner.example')
  t.equal(token.headers['cache-control'], 'no-store')
  const accessToken = token.json<{ access_token: string }>().access_token
  t.ok(accessToken)

  const introspection = await app.inject({
    method: 'POST', url: '/oidc/token/introspection', payload: `token=${accessToken}`,
    headers: { ...FORM, authorization: basic(CLIENT.id, CLIENT.secret) }
  })
  t.equal(introspection.statusCode, 200)
  t.equal(introspection.json<{ active: boolean }>().active, true)

  const wrong = await app.inject({
    method: 'POST', url: '/oidc/token', payload: 'grant_type=client_credentials',
    headers: { ...FORM, authorization: basic(CLIENT.id, 'a-wrong-secret') }
  })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.json<{ error: string }>().error, 'invalid_client', 'the provider\'s protocol error, as it wrote it')
  t.notOk(wrong.json<{ access_token?: string }>().access_token, 'nothing issued')
})
