import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { buildEdge, captureLog, jsonAnswer, startUpstream, type EdgeOptions, type LogLine } from '../../../fixtures/servers/edge.js'
import { redisSkip, startRedisServer } from '../../../fixtures/servers/redis-server.js'
import { edgeKeys } from '../../../../server/edge/keys/edge-secrets.js'
import { rateLimitBucketName } from '../../../../server/edge/http/rate-limit.js'
import { injectJson } from '../../../fixtures/http/post-json.js'
import { injectLogin, LOGIN_PATH } from '../../../fixtures/sign-in/sign-in.js'

const LIMIT = 3
/** Nothing listens on the discard port: a Redis that is down. */
const DEAD_REDIS_URL = 'redis://127.0.0.1:9'
/** Instances sharing Redis share an EDGE_SECRET too (the challenge refuses to start without one). */
const EDGE_SECRET = 'one edge secret for every instance, 32+ characters'

async function edges (t: Test, count: number, env: Record<string, string>, logger?: EdgeOptions['logger']): Promise<FastifyInstance[]> {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  return Promise.all(Array.from({ length: count }, () => buildEdge(t, {
    accountsUpstream: upstream.url,
    env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), EDGE_SECRET, ...env },
    ...(logger === undefined ? {} : { logger })
  })))
}

/** A login call (its body empty: the limit counts calls, not what they say); its status. */
async function login (edge: FastifyInstance): Promise<number> {
  return (await injectJson(edge, LOGIN_PATH, {})).statusCode
}

async function waitFor (what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Closes the edge, failing (rather than hanging the suite) if that takes more than 10 s; prints the time taken. */
async function closesPromptly (t: Test, edge: FastifyInstance): Promise<void> {
  const started = Date.now()
  const outcome = await Promise.race([
    edge.close().then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('still open after 10 s'), 10_000).unref())
  ])
  t.equal(outcome, 'closed', 'the edge closes')
  t.comment(`closed in ${Date.now() - started} ms`)
}

const errorsAbout = (lines: readonly LogLine[], text: RegExp): LogLine[] => lines.filter((line) => line.level >= 50 && text.test(line.msg))

t.test('without REDIS_URL each instance counts alone', async (t) => {
  const [first, second] = await edges(t, 2, {})
  const statuses = []
  for (let call = 0; call < 2 * LIMIT; call++) statuses.push(await login(call % 2 === 0 ? first! : second!))
  t.same(statuses, Array(2 * LIMIT).fill(200), `${LIMIT} calls on each instance, all let through`)
  t.equal(await login(first!), 429, 'the next one on an instance is over its own limit')
})

t.test('a Redis that is down when the edge starts', async (t) => {
  t.test('neither stops the edge nor lifts the limit: each instance counts alone, and says so once', async (t) => {
    const { lines, logger } = captureLog()
    const started = Date.now()
    const [first, second] = await edges(t, 2, { REDIS_URL: DEAD_REDIS_URL }, logger)
    t.comment(`two edges started in ${Date.now() - started} ms with Redis down`)

    const statuses = []
    for (let call = 0; call < 2 * LIMIT; call++) statuses.push(await login(call % 2 === 0 ? first! : second!))
    t.same(statuses, Array(2 * LIMIT).fill(200), 'sign-in keeps working')
    t.equal(await login(first!), 429, 'the per-instance limit still holds')
    t.equal(await login(second!), 429)

    t.ok(errorsAbout(lines, /Redis is unreachable/).length >= 1, 'the connection failure is logged as an error')
    const fallbacks = errorsAbout(lines, /rate limits cannot be shared through Redis/)
    t.same(fallbacks.map((line) => line.rateLimitGroup), ['accounts', 'accounts'],
      'the fallback is logged once per instance and group, not once per request')
    t.notMatch(JSON.stringify(lines), /redis:\/\//, 'the URL is not logged')
  })

  t.test('does not keep the edge from closing', async (t) => {
    const [edge] = await edges(t, 1, { REDIS_URL: DEAD_REDIS_URL })
    await login(edge!)
    await closesPromptly(t, edge!)
  })
})

t.test('with a real Redis', { skip: redisSkip }, async (t) => {
  t.test('two instances on one Redis enforce one shared limit', async (t) => {
    const redis = await startRedisServer(t)
    const [first, second] = await edges(t, 2, { REDIS_URL: redis.url })
    const statuses = []
    for (let call = 0; call < LIMIT + 1; call++) statuses.push(await login(call % 2 === 0 ? first! : second!))
    t.same(statuses, [...Array(LIMIT).fill(200), 429], `the ${LIMIT + 1}th call overall is refused, on either instance`)
    t.equal(await login(first!), 429, 'on the other instance too')

    const inspector = new Redis(redis.url)
    t.teardown(() => inspector.disconnect())
    const keys = await inspector.keys('threshold-rate-limit-*')
    t.same(keys, [`threshold-rate-limit-accounts-${rateLimitBucketName(edgeKeys(EDGE_SECRET).rateLimitPseudonym, '127.0.0.1')}`],
      'one count per group and client address, in Redis, named alike by both instances: by its keyed hash under EDGE_SECRET')
    t.equal(await inspector.get(keys[0]!), String(LIMIT + 2))
    const connections = String(await inspector.call('CLIENT', 'LIST')).trim().split('\n')
    t.equal(connections.length, 3, 'one connection per edge (both rate-limit groups share it), and this one')
  })

  t.test('attack: the keys in Redis name no client address in clear, whether rate limits or challenge counts; another EDGE_SECRET names them otherwise', async (t) => {
    const redis = await startRedisServer(t)
    // The backend refuses every login: the challenge counts the failures in Redis too.
    const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
    const edge = await buildEdge(t, { accountsUpstream: upstream.url, env: { REDIS_URL: redis.url, EDGE_SECRET, TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: '1000' } })
    const addresses = ['203.0.113.7', '198.51.100.23', '2001:db8:5:6::1', '2001:db8:abcd:12::99']
    for (const address of addresses) {
      const response = await injectLogin(edge, 'ada@example.com', 'x', { headers: { 'x-forwarded-for': address } })
      t.equal(response.statusCode, 401)
    }
    const inspector = new Redis(redis.url)
    t.teardown(() => inspector.disconnect())
    const keys = await inspector.keys('*')
    t.equal(keys.filter((key) => key.startsWith('threshold-rate-limit-accounts-')).length, addresses.length, 'a count per client')
    t.ok(keys.some((key) => key.startsWith('threshold-challenge-count:range:')), 'and the challenge\'s counts of their ranges')
    // A hash is 22 base64url characters: no room for an address (its dots or colons), a range (its slash) or an email (its @).
    const HASHED = /^threshold-(rate-limit-accounts-[\w-]{22}|challenge-count:(burst|range:[\w-]{22}|account:[\w-]{22}):\d+)$/
    for (const key of keys) t.match(key, HASHED, `${key}: only keyed hashes`)
    const name = rateLimitBucketName(edgeKeys(EDGE_SECRET).rateLimitPseudonym, '2001:db8:5:6::/64')
    t.ok(keys.includes(`threshold-rate-limit-accounts-${name}`), 'an IPv6 client by its /64, keyed')
    t.not(rateLimitBucketName(edgeKeys('another edge secret, at least 32 characters').rateLimitPseudonym, '2001:db8:5:6::/64'), name)
  })

  t.test('a Redis outage mid-run: each instance counts alone, and the count is shared again once Redis is back', async (t) => {
    const redis = await startRedisServer(t)
    const { lines, logger } = captureLog()
    const [first, second] = await edges(t, 2, { REDIS_URL: redis.url }, logger)
    t.equal(await login(first!), 200)
    t.equal(await login(second!), 200, 'two calls counted in Redis')

    await redis.stop()
    const statuses = []
    for (let call = 0; call < 2 * LIMIT; call++) statuses.push(await login(call % 2 === 0 ? first! : second!))
    t.same(statuses, Array(2 * LIMIT).fill(200), 'during the outage each instance allows its own limit')
    t.equal(await login(second!), 429, 'and no more')
    t.equal(errorsAbout(lines, /rate limits cannot be shared through Redis/).length, 2, 'one error per instance')

    await redis.start()
    await waitFor('both edges to reconnect', () =>
      lines.filter((line) => /^connected to Redis/.test(line.msg)).length >= 4)
    t.equal(errorsAbout(lines, /^the connection to Redis was lost/).length, 2, 'the lost connection was logged once per instance')
    const after = []
    for (let call = 0; call < LIMIT + 1; call++) after.push(await login(call % 2 === 0 ? first! : second!))
    t.same(after, [...Array(LIMIT).fill(200), 429], 'the limit is shared again (Redis came back empty)')
    t.equal(lines.filter((line) => /^Redis answers again: rate limits/.test(line.msg)).length, 2, 'the return is logged once per instance')

    await redis.stop()
    await closesPromptly(t, first!)
    await closesPromptly(t, second!)
  })

  t.test('a Redis that stops answering delays a call by at most the command timeout, then each instance counts alone', async (t) => {
    const redis = await startRedisServer(t)
    const [edge] = await edges(t, 1, { REDIS_URL: redis.url })
    t.equal(await login(edge!), 200)
    redis.pause()
    t.teardown(() => redis.resume())
    const timings = []
    const statuses = []
    for (let call = 0; call < LIMIT + 1; call++) {
      const started = Date.now()
      statuses.push(await login(edge!))
      timings.push(Date.now() - started)
    }
    t.same(statuses, [...Array(LIMIT).fill(200), 429], 'calls are answered, and limited by the instance')
    t.comment(`call times with Redis frozen (ms): ${timings.join(', ')}`)
    redis.resume()
    await closesPromptly(t, edge!)
  })
})
