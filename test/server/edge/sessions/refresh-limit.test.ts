import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { REFRESHES_PER_TOKEN_PER_MINUTE } from '../../../../server/edge/sessions/refresh-limit.js'
import { jsonAnswer, startEdgeWithUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'

/** The accounts service's stand-in: a refresh token it issued (`live-…`) is exchanged, any other refused. */
function accountsAnswer (request: RecordedRequest) {
  if (request.url === '/token/refresh') {
    const token = (JSON.parse(request.body.toString()) as { refresh?: string }).refresh ?? ''
    return token.startsWith('live-') ? jsonAnswer(200, { auth: 'eyJ.a.b', refresh: `${token}-next` }) : jsonAnswer(401, { error: 'Your session has ended.' })
  }
  return jsonAnswer(200, { auth: 'eyJ.a.b', refresh: 'live-login' })
}

async function edge (t: Parameters<typeof startEdgeWithUpstream>[0]) {
  return await startEdgeWithUpstream(t, (request, response) => accountsAnswer(request)(request, response), {
    accountsRoutes: REFERENCE_ACCOUNTS_ROUTES,
    env: { RATE_LIMIT_PER_MINUTE: '3' }
  })
}

/** A product's server refreshing: no Origin, no Sec-Fetch-Site, the token in the body. */
const refreshFromServer = (app: FastifyInstance, token: string, remoteAddress = '192.0.2.10') =>
  app.inject({ method: 'POST', url: '/accounts/token/refresh', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ refresh: token }), remoteAddress })

t.test('a product\'s server refreshes its visitors\' sessions past the per-address allowance, and leaves a visitor\'s allowance whole', async (t) => {
  const { app, upstream } = await edge(t)
  for (let visitor = 0; visitor < 12; visitor++) {
    const response = await refreshFromServer(app, `live-visitor-${visitor}`)
    t.equal(response.statusCode, 200, `visitor ${visitor}`)
    t.equal(response.json().refresh, `live-visitor-${visitor}-next`, 'a server gets the answer as the accounts API gives it')
  }
  const login = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': 'application/json' }, payload: '{"email":"a@b.test","password":"p"}', remoteAddress: '192.0.2.10' })
  t.equal(login.statusCode, 200, 'a login from the same address still has its 3 a minute')
  t.equal(upstream.requests.length, 13)
})

t.test('an attack: a flood of made-up refresh tokens from one address is refused once it has had RATE_LIMIT_PER_MINUTE refusals', async (t) => {
  const { app, upstream } = await edge(t)
  const statuses: number[] = []
  for (let guess = 0; guess < 20; guess++) statuses.push((await refreshFromServer(app, `guess-${guess}`, '203.0.113.50')).statusCode)
  t.same(statuses.slice(0, 3), [401, 401, 401], 'the service refuses the first three')
  t.ok(statuses.slice(3).every((status) => status === 429), 'the edge refuses the rest')
  t.equal(upstream.requests.length, 3, 'the service saw three guesses')
  const held = await refreshFromServer(app, 'live-real', '203.0.113.50')
  t.equal(held.statusCode, 429, 'a real token from that address waits too: the guesser cannot mix them in')
  t.equal(held.headers['retry-after'], '60')
  t.equal((await refreshFromServer(app, 'live-other', '198.51.100.77')).statusCode, 200, 'another address is not held')
})

t.test('an attack: a flood with no token, or a cookie of made-up tokens from a browser, is bounded alike', async (t) => {
  const { app, upstream } = await edge(t)
  const statuses: number[] = []
  for (let guess = 0; guess < 8; guess++) {
    const response = await app.inject({
      method: 'POST', url: '/accounts/token/refresh', payload: guess % 2 === 0 ? '{}' : '{"refresh":""}', remoteAddress: '203.0.113.60',
      headers: { 'content-type': 'application/json', cookie: guess % 4 === 0 ? `refresh=guess-${guess}` : '' }
    })
    statuses.push(response.statusCode)
  }
  t.ok(statuses.slice(3).every((status) => status === 429), `refused after three: ${statuses.join(' ')}`)
  t.ok(upstream.requests.length <= 3)
})

t.test('one token replayed beyond its honest uses is refused, though the service would answer (within its grace)', async (t) => {
  const { app, upstream } = await edge(t)
  const statuses: number[] = []
  for (let use = 0; use < REFRESHES_PER_TOKEN_PER_MINUTE + 3; use++) statuses.push((await refreshFromServer(app, 'live-replayed')).statusCode)
  t.same(statuses.slice(0, REFRESHES_PER_TOKEN_PER_MINUTE), Array(REFRESHES_PER_TOKEN_PER_MINUTE).fill(200))
  t.same(statuses.slice(REFRESHES_PER_TOKEN_PER_MINUTE), [429, 429, 429])
  t.equal(upstream.requests.length, REFRESHES_PER_TOKEN_PER_MINUTE)
})
