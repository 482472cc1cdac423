import t from 'tap'
import { CHALLENGE_HEADER } from '../../../../common/challenge/challenge.js'
import { startBuiltServer } from '../../../fixtures/servers/built-server.js'
import { solvedHeader } from '../../../fixtures/challenge/challenge.js'
import { faketimeSkip, skewedClockEnv } from '../../../fixtures/servers/faketime.js'
import { redisSkip, startRedisServer } from '../../../fixtures/servers/redis-server.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

const skip = redisSkip !== false ? redisSkip : faketimeSkip

/**
 * Two built edges on one Redis, one of them on a machine whose clock is five
 * minutes ahead. The challenges they issue and check expire by Redis's clock
 * (server/edge/redis/redis-clock.ts), so the skew changes nothing: a challenge one issues, the
 * other accepts. (By their own clocks, one issued by the edge behind would
 * have expired for the one ahead before it was solved.)
 */
t.test('edges on one Redis judge challenges by its clock, whatever their own', { skip }, async (t) => {
  const redis = await startRedisServer(t)
  const shared = {
    REDIS_URL: redis.url,
    EDGE_SECRET: 'the same edge secret on every instance, 32+ chars',
    // Every login challenged: the check of a challenge is what this is about.
    CHALLENGE: 'pow',
    CHALLENGE_RANGE_FAILURES: '0',
    LOG_LEVEL: 'info'
  }
  const onTime = await startBuiltServer(t, shared)
  const ahead = await startBuiltServer(t, { ...shared, ...skewedClockEnv('+5m') })
  t.match(ahead.output(), /clock differs from the Redis server's \(REDIS_URL\)/, 'the edge ahead says its clock is off Redis\'s')
  const offset = Number(/"offsetMs":(-?\d+)[^\n]*Redis server/.exec(ahead.output())?.[1])
  t.ok(Math.abs(offset + 300_000) < 2000, `by ${offset} ms`)
  t.notMatch(onTime.output(), /clock differs/, 'the edge on time says nothing')

  for (const [issuer, checker, label] of [[onTime, ahead, 'issued on time, checked ahead'], [ahead, onTime, 'issued ahead, checked on time']] as const) {
    const asked = await postLogin(issuer.base, 'nobody@example.com', 'not the password')
    t.equal(asked.status, 428, `${label}: challenged`)
    const challenge = (asked.body as unknown as { challenge: { challenge: { parameters: { data: { expires: number } } } } }).challenge.challenge
    const expiresInS = challenge.parameters.data.expires - Date.now() / 1000
    t.ok(expiresInS > 160 && expiresInS <= 181, `${label}: it expires three minutes from Redis's now (${Math.round(expiresInS)} s)`)
    const answered = await postLogin(checker.base, 'nobody@example.com', 'not the password', { headers: { [CHALLENGE_HEADER]: await solvedHeader(challenge) } })
    t.equal(answered.status, 401, `${label}: solved, it is accepted (the login itself then fails as it should)`)
  }
})
