import t from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { ACCOUNT_ROUTES, EMAIL_CODE_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, withRoutes } from '../../../../server/shared/accounts-routes.js'
import { loadAccountsContract } from '../../../../server/shared/accounts-contract.js'
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, listen, startUpstream } from '../../../fixtures/servers/edge.js'

/*
 * The edge in front of an accounts service, checked against what
 * docs/accounts-api.openapi.yaml says of it (`x-threshold-edge`, each call's
 * cookie parameters and bearer): the headers and cookies that reach the
 * backend on each call, the headers that come back, and the edge's own
 * refusals, which never reach the backend and fit the document.
 */

const contract = loadAccountsContract()
const ROUTES = withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, EMAIL_CODE_ROUTES, ACCOUNT_ROUTES)

interface EdgeDescription {
  readonly requestHeaders: { readonly always: string[], readonly onlyOn: Record<string, string[]>, readonly statedByTheEdge: Record<string, string> }
  readonly cookies: { readonly always: string[], readonly onlyOn: Record<string, string[]> }
  readonly responseHeaders: { readonly json: string[] }
  readonly refusals: Record<string, string>
  readonly requestBodies: { readonly maxBytes: number }
}
const edgeDescription = contract.document['x-threshold-edge'] as EdgeDescription

type Parameter = { readonly name?: string, readonly in?: string, readonly $ref?: string }
type Operation = { readonly parameters?: Parameter[], readonly security?: Array<Record<string, unknown>> }

/** The cookie parameters the document gives a call (following references). */
function documentedCookies (path: string): string[] {
  const parameters = ((contract.document.paths[path]?.post as Operation | undefined)?.parameters ?? []).map((parameter) => {
    if (parameter.$ref === undefined) return parameter
    const name = parameter.$ref.split('/').at(-1)!
    return (contract.document.components as { parameters: Record<string, Parameter> }).parameters[name]!
  })
  return parameters.filter((parameter) => parameter.in === 'cookie').map((parameter) => parameter.name!)
}

const bearerDocumented = (path: string): boolean =>
  ((contract.document.paths[path]?.post as Operation | undefined)?.security ?? []).some((requirement) => Object.keys(requirement).length > 0)

/**
 * The JSON calls the edge proxies, as the document names them (`/v2/login`):
 * those it describes (test/server/reference/contract.test.ts says which it does not describe yet).
 */
const jsonCalls = ROUTES.filter((route) => route.kind === 'json').map((route) => `/${route.path}`)
  .filter((path) => contract.document.paths[path] !== undefined)

const ALL_COOKIES = ['sso_state=s', 'threshold_browser=b', 'refresh=r', 'passkey_challenge=p', 'second_factor_browser=f', 'threshold_proof=q', 'email_code_browser=e', 'social_state=c', 'auth=token-of-the-product', 'product_session=other']

t.test('each call reaches the backend with the headers and cookies the document names for it, and no other', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { success: 'ok' }))
  // One call of each path from one address: more than the edge's default 30 a minute since the account view's came.
  const edge = await buildEdge(t, { accountsUpstream: upstream.url, accountsRoutes: ROUTES, env: { RATE_LIMIT_PER_MINUTE: '1000' } })
  const base = await listen(edge)
  const stated = Object.keys(edgeDescription.requestHeaders.statedByTheEdge)
  for (const path of jsonCalls) {
    await fetch(`${base}/accounts${path}?leak=1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': 'contract-test',
        authorization: 'Bearer a.b.c',
        cookie: ALL_COOKIES.join('; '),
        'x-forwarded-for': '203.0.113.9',
        forwarded: 'for=203.0.113.9',
        'x-real-ip': '203.0.113.9',
        'x-request-id': 'chosen-by-the-client',
        'accept-encoding': 'gzip',
        'x-custom': 'dropped'
      },
      body: '{}'
    })
    const seen = upstream.requests.at(-1)!
    t.equal(seen.url, path, `${path}: reached the backend, with no query string`)
    const bearer = edgeDescription.requestHeaders.onlyOn.authorization!.includes(path)
    t.equal(bearer, bearerDocumented(path), `${path}: x-threshold-edge and the operation agree on the bearer`)
    const expected = [...edgeDescription.requestHeaders.always, ...stated, ...(bearer ? ['authorization'] : []), 'cookie', 'host', 'connection'].sort()
    t.same(Object.keys(seen.headers).sort(), expected, `${path}: the documented headers`)
    t.not(seen.headers['x-request-id'], 'chosen-by-the-client', `${path}: the edge states the request id`)
    const cookies = String(seen.headers.cookie).split('; ').map((pair) => pair.split('=')[0]).sort()
    t.same(cookies, documentedCookies(path).sort(), `${path}: the documented cookies`)
    const listed = [...edgeDescription.cookies.always, ...Object.entries(edgeDescription.cookies.onlyOn).filter(([, on]) => on.includes(path)).map(([name]) => name)]
    t.same(listed.sort(), documentedCookies(path).sort(), `${path}: x-threshold-edge and the operation agree on the cookies`)
  }
})

t.test('of the backend\'s answer headers, the browser gets the ones the document names', async (t) => {
  const backendHeaders: Record<string, string> = {
    'set-cookie': 'sso_state=x; Path=/accounts; HttpOnly',
    'retry-after': '7',
    'www-authenticate': 'Bearer',
    'x-powered-by': 'backend 1.2',
    server: 'backend-server',
    location: 'https://elsewhere.example.test/',
    'cache-control': 'public, max-age=999',
    etag: '"backend-etag"',
    'access-control-allow-origin': '*',
    'content-security-policy': 'default-src *',
    'x-backend-secret': 'secret'
  }
  const upstream = await startUpstream(t, jsonAnswer(200, { success: 'ok' }, backendHeaders))
  const base = await listen(await buildEdge(t, { accountsUpstream: upstream.url, accountsRoutes: ROUTES }))
  const response = await fetch(`${base}/accounts/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  await response.text()
  const passed = edgeDescription.responseHeaders.json
  for (const [name, value] of Object.entries(backendHeaders)) {
    const arrived = name === 'set-cookie' ? response.headers.getSetCookie().includes(value) : response.headers.get(name) === value
    t.equal(arrived, passed.includes(name), `${name}: ${passed.includes(name) ? 'passed on' : 'dropped'}, as documented`)
  }
})

t.test('the edge\'s own refusals never reach the backend, and fit the document', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { success: 'ok' }))
  const base = await listen(await buildEdge(t, { accountsUpstream: upstream.url, accountsRoutes: ROUTES, env: { RATE_LIMIT_PER_MINUTE: '1000' } }))
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/accounts${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  const cases: Array<[string, number, () => Promise<Response>]> = [
    ['a body that is not JSON', 400, () => post('/v2/login', '{not json')],
    ['a cross-site call', 403, () => post('/v2/login', '{}', { 'sec-fetch-site': 'cross-site' })],
    ['a path not proxied', 404, () => post('/no/such/call', '{}')],
    ['another method', 405, () => fetch(`${base}/accounts/v2/login`)],
    ['a body over the limit', 413, () => post('/v2/login', JSON.stringify({ email: 'x'.repeat(edgeDescription.requestBodies.maxBytes) }))],
    ['a body that is not JSON by type', 415, () => post('/v2/login', 'email=a', { 'content-type': 'text/plain' })]
  ]
  for (const [name, status, send] of cases) {
    const response = await send()
    const body = await response.json() as unknown
    t.equal(response.status, status, `${name}: ${status}`)
    t.ok(edgeDescription.refusals[String(status)], `${name}: ${status} is among the edge's documented refusals`)
    t.equal(contract.answerCheck('post', '/v2/login', status)?.(body), null, `${name}: the answer fits the document`)
    if (status === 413 || status === 415) t.equal(contract.responseFor('post', '/v2/login', status)?.key, String(status), `${name}: documented on the call itself`)
  }
  t.equal(upstream.requests.length, 0, 'none reached the backend')

  const limited = await listen(await buildEdge(t, { accountsUpstream: upstream.url, accountsRoutes: ROUTES, env: { RATE_LIMIT_PER_MINUTE: '1' } }))
  await fetch(`${limited}/accounts/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  const tooMany = await fetch(`${limited}/accounts/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  t.equal(tooMany.status, 429)
  t.ok(tooMany.headers.get('retry-after'), '429 with Retry-After')
  t.equal(contract.answerCheck('post', '/register', 429)?.(await tooMany.json()), null, '429 fits the document')
  t.equal(upstream.requests.length, 1, 'the refused call did not reach the backend')
})

t.test('a backend that fails is answered by the edge with the 502, 503 or 504 the document describes', async (t) => {
  const html = await startUpstream(t, (_request, response) => {
    response.writeHead(500, { 'content-type': 'text/html' })
    response.end('<h1>stack trace</h1>')
  })
  const silent = await startUpstream(t, () => { /* never answers */ })
  const cases: Array<[string, number, string, Record<string, string>]> = [
    ['an answer that is not JSON', 502, html.url, {}],
    ['a backend that is down', 503, DEAD_UPSTREAM, {}],
    ['a backend that does not answer in time', 504, silent.url, { UPSTREAM_TIMEOUT_MS: '200' }]
  ]
  for (const [name, status, upstream, env] of cases) {
    const base = await listen(await buildEdge(t, { accountsUpstream: upstream, accountsRoutes: ROUTES, env }))
    const response = await fetch(`${base}/accounts/v2/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    t.equal(response.status, status, `${name}: ${status}`)
    t.ok(edgeDescription.refusals[String(status)], `${name}: among the edge's documented answers`)
    t.equal(contract.responseFor('post', '/v2/login', status)?.key, String(status), `${name}: documented on the call`)
    t.equal(contract.answerCheck('post', '/v2/login', status)?.(await response.json()), null, `${name}: the answer fits the document`)
  }
})
