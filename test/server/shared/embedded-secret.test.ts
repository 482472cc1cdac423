import type { FastifyInstance } from 'fastify'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { CheckDomainAuthorizationRequest, CheckDomainAuthorizationResponse } from '../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { PASSKEY_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import { EMBEDDED_SECRET_HEADER, newEmbeddedSecret } from '../../../server/shared/embedded-secret.js'
import { DATA_FRAME, decodeFrames, encodeFrame, encodeTrailers } from '../../../server/shared/domain-check/grpc-web-frames.js'
import { buildEdge, jsonAnswer, startUpstream, type RecordedRequest, type Upstream } from '../../fixtures/servers/edge.js'
import { formBody, PAGE_POST_HEADERS } from '../../fixtures/no-script/form-page.js'

const AUTHORIZED = 1
const UNAUTHORIZED = 2
const PAGE = { host: 'signin.example.com', 'x-forwarded-proto': 'https', 'sec-fetch-site': 'same-origin', origin: 'https://signin.example.com' }
const JSON_CALL = { ...PAGE, 'content-type': 'application/json' }

/** A stand-in for the reference services: the accounts calls, the domain check (blocked.test refused) and the health route. */
function referenceStandIn (request: RecordedRequest, response: ServerResponse): void {
  const path = request.url.split('?')[0]!
  if (path === CHECK_DOMAIN_AUTHORIZATION_PATH) {
    const [frame] = decodeFrames(request.body)
    const domain = CheckDomainAuthorizationRequest.deserializeBinary(frame!.payload).getDomain()
    const message = new CheckDomainAuthorizationResponse().setAuthorization(domain === 'blocked.test' ? UNAUTHORIZED : AUTHORIZED).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeTrailers(0)]))
    return
  }
  // A passkey sign-in for an address whose domain the check refuses: the edge revokes its tokens itself.
  if (path === '/passkeys/login') return jsonAnswer(200, { auth: 'a.b.c', refresh: 'r', email: 'someone@blocked.test' })(request, response)
  if (path === '/.well-known/jwks.json') return jsonAnswer(200, { keys: [] })(request, response)
  return jsonAnswer(200, path === '/healthz' ? { status: 'ok' } : { auth: 'a.b.c', refresh: 'r' })(request, response)
}

/** Every way the edge reaches its accounts service and domain check, once each. */
async function callEveryWay (app: FastifyInstance): Promise<void> {
  await app.inject({ method: 'GET', url: '/readyz', headers: { host: PAGE.host } })
  await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: JSON_CALL, payload: JSON.stringify({ email: 'ada@example.test', password: 'pw' }) })
  await app.inject({ method: 'POST', url: '/', headers: PAGE_POST_HEADERS, payload: formBody({ form: 'login', email: 'ada@example.test', password: 'pw' }) })
  await app.inject({ method: 'GET', url: '/accounts/.well-known/jwks.json', headers: { host: PAGE.host } })
  await app.inject({ method: 'GET', url: '/accounts/verifyEmail?token=t', headers: { host: PAGE.host } })
  await app.inject({ method: 'POST', url: '/accounts/auth/sso/saml/acs', headers: { host: PAGE.host, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'SAMLResponse=x' })
  await app.inject({
    method: 'POST',
    url: CHECK_DOMAIN_AUTHORIZATION_PATH,
    headers: { ...PAGE, 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' },
    payload: encodeFrame(DATA_FRAME, new CheckDomainAuthorizationRequest().setDomain('example.test').serializeBinary())
  })
  await app.inject({ method: 'POST', url: '/accounts/passkeys/login', headers: JSON_CALL, payload: JSON.stringify({ credential: {} }) })
}

async function edgeInFront (t: Test, secret: string, env: (upstream: Upstream) => Record<string, string>): Promise<{ app: FastifyInstance, upstream: Upstream }> {
  const upstream = await startUpstream(t, referenceStandIn)
  const app = await buildEdge(t, {
    embeddedSecret: secret,
    accountsUpstream: upstream.url,
    edgeAuthUpstream: upstream.url,
    accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES),
    passwordResetCompletion: true,
    env: { TRUST_PROXY: 'loopback', DOMAIN_CHECK_ENFORCED: 'true', CHALLENGE: 'off', RATE_LIMIT_PER_MINUTE: '1000', ...env(upstream) }
  })
  return { app, upstream }
}

t.test('every call of the edge to its embedded services carries their secret: proxied JSON, form posts, reads, gRPC-web, its own calls, the probes', async (t) => {
  const secret = newEmbeddedSecret()
  const { app, upstream } = await edgeInFront(t, secret, () => ({}))
  await callEveryWay(app)
  const paths = new Set(upstream.requests.map((request) => request.url.split('?')[0]))
  t.same([...paths].sort(), [
    '/.well-known/jwks.json', '/auth/sso/saml/acs', CHECK_DOMAIN_AUTHORIZATION_PATH, '/healthz', '/passkeys/login', '/token/revoke', '/v2/login', '/verifyEmail'
  ].sort(), 'every way was taken')
  t.equal(upstream.requests.filter((request) => request.url === '/v2/login').length, 2, 'the login twice: the page\'s call and the form post\'s')
  t.ok(upstream.requests.filter((request) => request.url === CHECK_DOMAIN_AUTHORIZATION_PATH).length >= 3, 'the domain check: the page\'s and the edge\'s own')
  for (const request of upstream.requests) {
    t.equal(request.headers[EMBEDDED_SECRET_HEADER], secret, `${request.method} ${request.url.split('?')[0]!} carries it`)
  }
})

t.test('an own backend never sees the secret, and a visitor cannot send one through', async (t) => {
  const secret = newEmbeddedSecret()
  const { app, upstream } = await edgeInFront(t, secret, (upstream) => ({ ACCOUNTS_URL: upstream.url, EDGE_AUTH_URL: upstream.url }))
  await callEveryWay(app)
  await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_CALL, [EMBEDDED_SECRET_HEADER]: 'the visitor\'s own' }, payload: '{}' })
  t.ok(upstream.requests.length >= 4, 'the calls an own backend gets were made')
  for (const request of upstream.requests) {
    t.equal(request.headers[EMBEDDED_SECRET_HEADER], undefined, `${request.method} ${request.url.split('?')[0]!}: none`)
  }
})
