import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { SharedClock } from '../../../server/shared/shared-clock.js'

/** A database whose clock is `aheadMs` ahead of this process's, answering after each of `delaysMs` in turn. */
function databaseAhead (aheadMs: number, delaysMs: readonly number[] = [0]): () => Promise<number> {
  let call = 0
  return async () => {
    const delay = delaysMs[call++ % delaysMs.length]!
    // The time is read half-way through the round trip, as a server answers between the request and the reply.
    await sleep(delay / 2)
    const time = Date.now() + aheadMs
    await sleep(delay / 2)
    return time
  }
}

t.test('until its first measurement the clock is the process\'s own', async (t) => {
  const clock = new SharedClock(databaseAhead(300_000))
  t.equal(clock.isSynced, false)
  t.ok(Math.abs(clock.now() - Date.now()) <= 1)
})

t.test('a database ahead or behind: now() is the database\'s time, and the offset is told', async (t) => {
  for (const aheadMs of [300_000, -300_000, 0]) {
    const told: number[] = []
    const clock = new SharedClock(databaseAhead(aheadMs), (offsetMs) => told.push(offsetMs))
    await clock.sync()
    t.ok(Math.abs(clock.offsetMs - aheadMs) < 50, `${aheadMs} ms: measured ${clock.offsetMs}`)
    t.ok(Math.abs(clock.now() - (Date.now() + aheadMs)) < 50, `${aheadMs} ms: now() follows the database`)
    t.same(told, [clock.offsetMs], 'told once per sync')
  }
})

t.test('of a sync\'s measurements, the one with the shortest round trip is kept', async (t) => {
  // A slow answer whose time was read late: its offset would be off by up to half its round trip.
  let call = 0
  const clock = new SharedClock(async () => {
    call++
    if (call === 2) return Date.now() + 10_000
    await sleep(200)
    return Date.now() + 10_000 + 400
  })
  await clock.sync()
  t.equal(call, 3, 'three measurements')
  t.ok(Math.abs(clock.offsetMs - 10_000) < 20, `the quick one: ${clock.offsetMs}`)
})

t.test('a sync that fails keeps the last offset in use and passes the error on', async (t) => {
  let reachable = true
  const clock = new SharedClock(async () => {
    if (!reachable) throw new Error('connection refused')
    return Date.now() - 60_000
  })
  await clock.sync()
  reachable = false
  await t.rejects(clock.sync(), /connection refused/)
  t.ok(Math.abs(clock.offsetMs + 60_000) < 20, 'the measured offset stays')
  t.equal(clock.isSynced, true)
})

t.test('keepSynced follows a clock that is stepped, tells failures, and stops', async (t) => {
  let aheadMs = 1000
  let calls = 0
  let failing = false
  const clock = new SharedClock(async () => {
    calls++
    if (failing) throw new Error('the database restarted')
    return Date.now() + aheadMs
  })
  const errors: unknown[] = []
  clock.keepSynced((error) => errors.push(error), 20)
  t.teardown(() => clock.stop())
  await sleep(100)
  t.ok(Math.abs(clock.offsetMs - 1000) < 20, 'measured on the interval')
  // The machine's clock is stepped (NTP, or an operator): the next measurements follow.
  aheadMs = -2000
  await sleep(100)
  t.ok(Math.abs(clock.offsetMs + 2000) < 20, `followed the step: ${clock.offsetMs}`)
  failing = true
  await sleep(100)
  t.ok(errors.length > 0 && errors.every((error) => /restarted/.test(String(error))), 'failed measurements are told')
  t.ok(Math.abs(clock.offsetMs + 2000) < 20, 'and change nothing')
  clock.stop()
  const stoppedAt = calls
  await sleep(100)
  t.equal(calls, stoppedAt, 'no measurement after stop')
})
