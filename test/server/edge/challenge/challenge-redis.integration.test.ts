import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { CHALLENGE_HEADER } from '../../../../common/challenge/challenge.js'
import { buildEdge, captureLog, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { solvedHeader } from '../../../fixtures/challenge/challenge.js'
import { redisSkip, startRedisServer } from '../../../fixtures/servers/redis-server.js'
import type { ServerResponse } from 'node:http'
import { injectLogin } from '../../../fixtures/sign-in/sign-in.js'

/*
 * Two edges behind one load balancer share their risk counts and the record
 * of used challenges through a real redis-server (integration tier).
 */

const EDGE_SECRET = 'the same edge secret on every instance, 32+ chars'

function refuseEveryLogin (_request: RecordedRequest, response: ServerResponse): void {
  response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Wrong email or password."}')
}

async function twoEdges (t: Test, env: Record<string, string>, logger?: ReturnType<typeof captureLog>['logger']): Promise<FastifyInstance[]> {
  const upstream = await startUpstream(t, refuseEveryLogin)
  return await Promise.all([0, 1].map(async () => await buildEdge(t, {
    accountsUpstream: upstream.url,
    env: { TRUST_PROXY: 'loopback', EDGE_SECRET, RATE_LIMIT_PER_MINUTE: '1000', ...env },
    ...(logger === undefined ? {} : { logger })
  })))
}

/** A wrong guess at `email`'s password from `address`. */
function login (edge: FastifyInstance, address: string, email: string, headers: Record<string, string> = {}) {
  return injectLogin(edge, email, 'guess', { headers: { 'x-forwarded-for': address, ...headers } })
}

t.test('failures seen by one instance raise the risk judged by the other', { skip: redisSkip }, async (t) => {
  const redis = await startRedisServer(t)
  const [first, second] = await twoEdges(t, { REDIS_URL: redis.url, CHALLENGE_RANGE_FAILURES: '4', CHALLENGE_ACCOUNT_FAILURES: '3' })
  for (let i = 0; i < 4; i++) t.equal((await login(first!, `203.0.113.${i + 1}`, `user${i}@example.com`)).statusCode, 401)
  t.equal((await login(second!, '203.0.113.99', 'new@example.com')).statusCode, 428, 'the /24 is challenged on the other instance')
  t.equal((await login(second!, '198.51.100.1', 'new@example.com')).statusCode, 401, 'another range is not')

  for (let i = 0; i < 3; i++) await login(first!, `192.0.${i}.1`, 'ada@example.com')
  t.equal((await login(second!, '192.0.9.1', 'ada@example.com')).statusCode, 428, 'the account is challenged on the other instance')

  const client = new Redis(redis.url)
  t.teardown(() => client.disconnect())
  const keys = await client.keys('threshold-challenge-count:*')
  t.ok(keys.length > 0)
  t.notMatch(keys.join(' '), /203\.0\.113|198\.51|192\.0|\/24|example|ada|@/, 'ranges and accounts only as keyed hashes')
})

t.test('a challenge solved at one instance passes there once, and is refused as reused at the other', { skip: redisSkip }, async (t) => {
  const redis = await startRedisServer(t)
  const [first, second] = await twoEdges(t, { REDIS_URL: redis.url, CHALLENGE_RANGE_FAILURES: '0' })
  const asked = await login(first!, '203.0.113.5', 'ada@example.com')
  t.equal(asked.statusCode, 428)
  const header = await solvedHeader((asked.json<{ challenge: { challenge: Record<string, unknown> } }>()).challenge.challenge)
  t.equal((await login(second!, '203.0.113.5', 'ada@example.com', { [CHALLENGE_HEADER]: header })).statusCode, 401, 'issued by one, accepted by the other: they share EDGE_SECRET')
  t.equal((await login(first!, '203.0.113.5', 'ada@example.com', { [CHALLENGE_HEADER]: header })).statusCode, 428, 'used once already, at the other instance')
})

t.test('while Redis is down each instance judges alone and says so once; it shares again once Redis is back', { skip: redisSkip }, async (t) => {
  const redis = await startRedisServer(t)
  const { lines, logger } = captureLog()
  const [first] = await twoEdges(t, { REDIS_URL: redis.url, CHALLENGE_RANGE_FAILURES: '2' }, logger)
  await redis.stop()
  for (let i = 0; i < 3; i++) t.equal((await login(first!, `203.0.113.${i + 1}`, 'a@example.com')).statusCode, i < 2 ? 401 : 428, 'counted in the process meanwhile')
  t.equal(lines.filter((line) => /challenge risk counts cannot be shared/.test(line.msg)).length, 1, 'logged once')
  await redis.start()
  const deadline = Date.now() + 15_000
  while (!lines.some((line) => /challenge risk counts are shared/.test(line.msg)) && Date.now() < deadline) {
    await login(first!, '198.51.100.1', 'b@example.com')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.ok(lines.some((line) => /Redis answers again: challenge risk counts are shared/.test(line.msg)), 'the return is logged')
})
