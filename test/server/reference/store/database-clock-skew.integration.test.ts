import t from 'tap'
import { startBuiltServer, type BuiltServer } from '../../../fixtures/servers/built-server.js'
import { faketimeSkip, skewedClockEnv } from '../../../fixtures/servers/faketime.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { GOOD_PASSWORD } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

const SKEW_MS = 5 * 60 * 1000
const skip = postgresSkip !== false ? postgresSkip : faketimeSkip

/** The time of the first JSON log line that has one: the process's own clock, faked or not. */
function firstLogTime (server: BuiltServer): number {
  for (const line of server.output().split('\n')) {
    try {
      const time = (JSON.parse(line) as { time?: unknown }).time
      if (typeof time === 'number') return time
    } catch {
      // not a log line
    }
  }
  throw new Error(`no log line with a time:\n${server.output()}`)
}

/**
 * Two instances on one PostgreSQL, one of them with its machine's clock five
 * minutes ahead. Every lock and expiry one writes and the other compares
 * follows the database's clock (server/shared/shared-clock.ts), so the skew changes
 * nothing a visitor sees.
 */
t.test('an instance five minutes ahead locks out no right password, and ends no session early', { skip }, async (t) => {
  const postgres = await startPostgresServer(t)
  const databaseUrl = await postgres.createDatabase()
  const started = Date.now()
  // LOG_LEVEL=info for the lines that tell the process's clock and its offset from the database's.
  const onTime = await startBuiltServer(t, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' })
  const ahead = await startBuiltServer(t, {
    DATABASE_URL: databaseUrl,
    DATA_DIR: onTime.dataDir,
    LOG_LEVEL: 'info',
    ...skewedClockEnv('+5m')
  })
  t.ok(firstLogTime(ahead) - started >= SKEW_MS - 1000, 'the second instance\'s own clock is five minutes ahead')
  t.ok(Math.abs(firstLogTime(onTime) - started) < 60_000, 'the first instance\'s is not')
  const offsets = [...ahead.output().matchAll(/"offsetMs":(-?\d+)/g)].map((match) => Number(match[1]))
  t.ok(offsets.length > 0 && Math.abs(offsets[0]! + SKEW_MS) < 1000, `the second instance measured its clock ${offsets[0]} ms from the database's, and said so`)
  t.notMatch(onTime.output(), /"offsetMs"/, 'the first instance, on time, says nothing of its clock')

  const email = 'skew@example.com'
  await registerAccount(onTime.base, email)

  // A wrong password writes a lock that ends at once (the first failures are free); by the ahead
  // instance's own clock that "at once" would be five minutes away for the other.
  const refreshTokens: string[] = []
  for (const [wrongAt, rightAt, label] of [[ahead, onTime, 'ahead, then on time'], [onTime, ahead, 'on time, then ahead']] as const) {
    t.equal((await postLogin(wrongAt.base, email, 'wrong horse battery staple')).status, 401, `${label}: the wrong password is refused`)
    const right = await postLogin(rightAt.base, email, GOOD_PASSWORD)
    t.equal(right.status, 200, `${label}: the right password signs in`)
    refreshTokens.push(String(right.body.refresh))
  }

  // A session begun on one instance is refreshed by the other, and back: no expiry is five minutes off.
  for (const [index, first] of refreshTokens.entries()) {
    let refresh = first
    for (const server of index === 0 ? [ahead, onTime, ahead] : [onTime, ahead, onTime]) {
      const answer = await postJson(server.base, '/accounts/token/refresh', { refresh })
      t.equal(answer.status, 200, `session ${index + 1}: refreshed on the other instance`)
      refresh = String(answer.body.refresh)
    }
  }

  // A lock really set, by both instances in turn: by the database's clock it doubles from a second
  // to eight, and both say the same of it (by their own clocks, one would say five minutes, the other none).
  let failures = 0
  for (let attempt = 0; failures < 8 && attempt < 100; attempt++) {
    const answer = await postLogin((attempt % 2 === 0 ? onTime : ahead).base, email, `guess ${attempt}`)
    if (answer.status === 401) failures++
    else await new Promise((resolve) => setTimeout(resolve, 500))
  }
  t.equal(failures, 8, 'eight wrong passwords counted')
  for (const [index, server] of [onTime, ahead].entries()) {
    const answer = await postLogin(server.base, email, GOOD_PASSWORD)
    t.equal(answer.status, 429, `the right password waits for the lock on instance ${index + 1}`)
    const seconds = Number(/\b(\d+) seconds?\b/.exec(String(answer.body.error))?.[1])
    t.ok(seconds >= 1 && seconds <= 8, `instance ${index + 1} says the lock ends in ${seconds} s: ${String(answer.body.error)}`)
  }
})
