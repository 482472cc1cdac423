import t from 'tap'
import { accountKeyFor, createRisk, levelOf, rangeKeyFor, MAX_LEVEL, ACCOUNT_MAX_LEVEL, riskRangeOf, ACCOUNT_WINDOW_MINUTES, RANGE_WINDOW_MINUTES } from '../../../../server/edge/challenge/risk.js'
import { BUCKET_MS, localWindowCounts } from '../../../../server/edge/challenge/window-counts.js'

const KEY = Buffer.alloc(32, 7)
const MINUTE = BUCKET_MS

/** A risk over in-process counts and a clock the test moves. */
function riskWithClock (thresholds = { rangeFailures: 4, accountFailures: 3, burstFailures: 10 }) {
  const clock = { now: 1_700_000_000_000 }
  const now = () => clock.now
  return { clock, risk: createRisk(localWindowCounts(now), thresholds, now) }
}

t.test('levelOf: 0 below the threshold, 1 at it, one more per doubling, capped; a threshold of 0 always challenges at level 1', async (t) => {
  t.equal(levelOf(0, 4), 0)
  t.equal(levelOf(3, 4), 0)
  t.equal(levelOf(4, 4), 1)
  t.equal(levelOf(7, 4), 1)
  t.equal(levelOf(8, 4), 2)
  t.equal(levelOf(16, 4), 3)
  t.equal(levelOf(1_000_000, 4), MAX_LEVEL)
  t.equal(levelOf(0, 0), 1)
  t.equal(levelOf(500, 0), 1)
})

t.test('riskRangeOf: an IPv4 /24, an IPv6 /48 (compressed or not), one range for requests without an address', async (t) => {
  t.equal(riskRangeOf('198.51.100.77'), '198.51.100.0/24')
  t.equal(riskRangeOf('2001:db8:1:2::9'), '2001:db8:1::/48')
  t.equal(riskRangeOf('2001:db8::1'), '2001:db8:0::/48')
  t.equal(riskRangeOf('2001:0db8:0001:ffff:1:2:3:4'), '2001:db8:1::/48')
  t.equal(riskRangeOf('::1'), '0:0:0::/48')
  t.equal(riskRangeOf(null), 'unknown')
  t.equal(riskRangeOf('not an address'), 'unknown')
})

t.test('accounts are keyed hashes of the email as the accounts service finds it (emailKey): never the address itself', async (t) => {
  const key = accountKeyFor(KEY, ' Ada@Example.COM ')
  t.equal(key, accountKeyFor(KEY, 'ada@example.com'))
  t.equal(accountKeyFor(KEY, '\uff41da@example.com'), key, 'a full-width letter is the same account')
  t.equal(accountKeyFor(KEY, 'ada@b\u00fccher.example'), accountKeyFor(KEY, 'ada@xn--bcher-kva.example'), 'a domain in Unicode and in punycode')
  t.not(accountKeyFor(KEY, 'ada2@example.com'), key)
  t.not(key, accountKeyFor(Buffer.alloc(32, 8), 'ada@example.com'), 'another edge secret names it otherwise')
  t.notMatch(key, /ada|example/)
  t.match(key, /^[A-Za-z0-9_-]{22}$/)
})

t.test('ranges are keyed hashes too: the counts (in Redis) never name a client\'s addresses', async (t) => {
  const key = rangeKeyFor(KEY, riskRangeOf('203.0.113.9'))
  t.equal(key, rangeKeyFor(KEY, riskRangeOf('203.0.113.200')), 'one /24, one key')
  t.not(key, rangeKeyFor(KEY, riskRangeOf('203.0.114.9')))
  t.not(key, rangeKeyFor(Buffer.alloc(32, 8), riskRangeOf('203.0.113.9')), 'another edge secret names it otherwise')
  t.match(key, /^[A-Za-z0-9_-]{22}$/)
  const keys: string[] = []
  const risk = createRisk({ ...localWindowCounts(Date.now), add: async (names) => { keys.push(...names) } }, { rangeFailures: 4, accountFailures: 3, burstFailures: 10 })
  await risk.noteFailedLogin(key, [accountKeyFor(KEY, 'ada@example.com')])
  await risk.noteRequest(key)
  t.notMatch(keys.join(' '), /203|113|ada|example/, 'what is counted names neither')
})

t.test('attack: failures for someone else\'s account hold it at level 3 at most; a range climbs to the top', async (t) => {
  const { risk } = riskWithClock({ rangeFailures: 4, accountFailures: 3, burstFailures: 1_000_000 })
  const victim = accountKeyFor(KEY, 'victim@example.com')
  for (let i = 0; i < 300; i++) await risk.noteFailedLogin(riskRangeOf(`10.${i % 250}.${Math.floor(i / 250)}.1`), [victim])
  t.equal(ACCOUNT_MAX_LEVEL, 3)
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), [victim]), ACCOUNT_MAX_LEVEL, '300 failures (level 7 uncapped): level 3 for the victim')
  const attacker = riskRangeOf('198.51.100.1')
  for (let i = 0; i < 300; i++) await risk.noteFailedLogin(attacker, [])
  t.equal(await risk.levelFor(attacker, [victim]), MAX_LEVEL, 'the attacker\'s own range climbs to the top')
})

t.test('failed logins from one /24 raise its level, doubling per level; a neighbour range is untouched; the level falls as the window passes', async (t) => {
  const { clock, risk } = riskWithClock()
  const range = riskRangeOf('203.0.113.5')
  const other = riskRangeOf('203.0.114.5')
  t.equal(await risk.levelFor(range, []), 0, 'nothing counted: no challenge')
  for (let i = 0; i < 4; i++) await risk.noteFailedLogin(range, [accountKeyFor(KEY, `user${i}@example.com`)])
  t.equal(await risk.levelFor(range, []), 1, 'at the range threshold')
  t.equal(await risk.levelFor(other, []), 0, 'another /24 is not challenged')
  for (let i = 0; i < 4; i++) await risk.noteFailedLogin(range, [])
  t.equal(await risk.levelFor(range, []), 2, 'twice the threshold: level 2')
  clock.now += (RANGE_WINDOW_MINUTES - 1) * MINUTE
  t.equal(await risk.levelFor(range, []), 2, 'still inside the window')
  clock.now += MINUTE
  t.equal(await risk.levelFor(range, []), 0, 'once the window has passed, risk has fallen again')
})

t.test('registration and reset requests count against their range', async (t) => {
  const { risk } = riskWithClock()
  const range = riskRangeOf('192.0.2.10')
  for (let i = 0; i < 3; i++) await risk.noteRequest(range)
  t.equal(await risk.levelFor(range, []), 0)
  await risk.noteRequest(range)
  t.equal(await risk.levelFor(range, []), 1)
})

t.test('failed logins on one account challenge that account from any range; a successful login clears them', async (t) => {
  const { clock, risk } = riskWithClock({ rangeFailures: 1000, accountFailures: 3, burstFailures: 1000 })
  const ada = accountKeyFor(KEY, 'ada@example.com')
  const bob = accountKeyFor(KEY, 'bob@example.com')
  for (let i = 0; i < 3; i++) await risk.noteFailedLogin(riskRangeOf(`198.51.${i}.1`), [ada])
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), [ada]), 1, 'a fresh range naming the account is challenged')
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), [bob]), 0, 'another account from it is not')
  await risk.noteSuccessfulLogin([ada])
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), [ada]), 0, 'cleared by a successful login')

  for (let i = 0; i < 3; i++) await risk.noteFailedLogin('unknown', [ada])
  clock.now += ACCOUNT_WINDOW_MINUTES * MINUTE
  t.equal(await risk.levelFor('unknown', [ada]), 0, 'and fallen once its window has passed')
})

t.test('a burst of failed logins across accounts and ranges asks everyone for level 1, no more; it falls over the next minutes', async (t) => {
  const { clock, risk } = riskWithClock({ rangeFailures: 1000, accountFailures: 1000, burstFailures: 10 })
  clock.now = Math.ceil(clock.now / MINUTE) * MINUTE
  for (let i = 0; i < 9; i++) await risk.noteFailedLogin(riskRangeOf(`10.0.${i}.1`), [accountKeyFor(KEY, `u${i}@example.com`)])
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), []), 0, 'below the burst threshold')
  for (let i = 0; i < 100; i++) await risk.noteFailedLogin(riskRangeOf(`10.1.${i}.1`), [])
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), []), 1, 'a clean visitor gets the lightest work only')
  clock.now += MINUTE + MINUTE / 2
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), []), 1, 'half of the last minute still counts')
  clock.now += MINUTE
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), []), 0, 'two minutes on, the burst is over')
})

t.test('thresholds of 0 always challenge, at level 1, with or without an account named', async (t) => {
  const { risk } = riskWithClock({ rangeFailures: 0, accountFailures: 0, burstFailures: 0 })
  t.equal(await risk.levelFor('unknown', []), 1)
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), [accountKeyFor(KEY, 'a@example.com')]), 1)
  const accountOnly = riskWithClock({ rangeFailures: 1000, accountFailures: 0, burstFailures: 1000 })
  t.equal(await accountOnly.risk.levelFor('unknown', []), 1, 'CHALLENGE_ACCOUNT_FAILURES=0 challenges a call naming no account too')
})

t.test('calls the backend shed (its 503) count toward their range and the burst, never toward an account', async (t) => {
  const { risk } = riskWithClock({ rangeFailures: 4, accountFailures: 1, burstFailures: 10 })
  const ada = accountKeyFor(KEY, 'ada@example.com')
  for (let i = 0; i < 9; i++) await risk.noteShedCall(riskRangeOf(`2001:db8:${i.toString(16)}::1`))
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), [ada]), 0, 'nine shed calls from nine ranges: below the burst, and no account counted')
  await risk.noteShedCall(riskRangeOf('2001:db8:ff::1'))
  t.equal(await risk.levelFor(riskRangeOf('192.0.2.1'), [ada]), 1, 'the tenth: a burst, everyone at level 1')
  const flooding = riskWithClock({ rangeFailures: 4, accountFailures: 1000, burstFailures: 1000 })
  for (let i = 0; i < 8; i++) await flooding.risk.noteShedCall(riskRangeOf('203.0.113.9'))
  t.equal(await flooding.risk.levelFor(riskRangeOf('203.0.113.1'), []), 2, 'one range shedding again and again climbs as failing does')
})

t.test('without the account signal (the owner\'s known browser, a form posted without scripts) the account\'s count is not read; range and burst still are', async (t) => {
  const { risk } = riskWithClock({ rangeFailures: 4, accountFailures: 3, burstFailures: 1000 })
  const victim = accountKeyFor(KEY, 'victim@example.com')
  for (let i = 0; i < 20; i++) await risk.noteFailedLogin(riskRangeOf(`10.0.${i}.1`), [victim])
  const owner = riskRangeOf('192.0.2.1')
  t.equal(await risk.levelFor(owner, [victim]), 3, 'with it: the account\'s level')
  t.equal(await risk.levelFor(owner, [victim], false), 0, 'without it: nothing else has risen')
  for (let i = 0; i < 4; i++) await risk.noteFailedLogin(owner, [])
  t.equal(await risk.levelFor(owner, [victim], false), 1, 'its range still counts')
  const always = riskWithClock({ rangeFailures: 1000, accountFailures: 0, burstFailures: 1000 })
  t.equal(await always.risk.levelFor('unknown', [victim], false), 0, 'CHALLENGE_ACCOUNT_FAILURES=0 is the account signal too')
})
