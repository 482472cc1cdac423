import t from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'
import { redisSkip, startRedisServer } from '../../../fixtures/servers/redis-server.js'

/*
 * Two edges behind one load balancer, sharing their counts through a real
 * redis-server (integration tier): a guesser spreading made-up refresh
 * tokens over both instances is held as if one had seen them all.
 */

const EDGE_SECRET = 'the same edge secret on every instance, 32+ chars'

t.test('an attack: made-up refresh tokens spread over two instances are refused once the address has had its allowance', { skip: redisSkip }, async (t) => {
  const redis = await startRedisServer(t)
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Your session has ended.' }))
  const edges = await Promise.all([0, 1].map(async () => await buildEdge(t, {
    accountsUpstream: upstream.url,
    accountsRoutes: REFERENCE_ACCOUNTS_ROUTES,
    env: { TRUST_PROXY: 'loopback', EDGE_SECRET, REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '4' }
  })))
  const statuses: number[] = []
  for (let guess = 0; guess < 12; guess++) {
    const response = await edges[guess % 2]!.inject({
      method: 'POST', url: '/accounts/token/refresh', payload: JSON.stringify({ refresh: `guess-${guess}` }),
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.70' }
    })
    statuses.push(response.statusCode)
  }
  t.same(statuses.slice(0, 4), [401, 401, 401, 401])
  t.ok(statuses.slice(4).every((status) => status === 429), `then refused by either instance: ${statuses.join(' ')}`)
  t.equal(upstream.requests.length, 4, 'the service saw four guesses, not eight')
})
