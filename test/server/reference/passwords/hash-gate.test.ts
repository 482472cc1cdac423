import t from 'tap'
import { defaultHashGateOptions, HashGate, PasswordWorkRefused, threadPoolSize } from '../../../../server/reference/passwords/hash-gate.js'

/** Work that runs until released: stands for a hash that takes as long as the test wants. */
function heldWork (): { work: () => Promise<string>, started: Promise<void>, release: () => void } {
  let release!: () => void
  let markStarted!: () => void
  const started = new Promise<void>((resolve) => { markStarted = resolve })
  const done = new Promise<string>((resolve) => { release = () => resolve('done') })
  return { work: () => { markStarted(); return done }, started, release }
}

const refusal = (reason: 'busy' | 'client-gone') => ({ name: 'Error', code: 'PASSWORD_WORK_REFUSED', reason })

t.test('sized to the machine: one hash per core, within libuv\'s thread pool', async (t) => {
  const options = defaultHashGateOptions()
  t.ok(options.concurrency >= 1 && options.concurrency <= threadPoolSize())
  t.equal(options.maxQueue, options.concurrency * 64)
  t.equal(options.maxWaitMs, 2000)
  t.equal(threadPoolSize({}), 4, "libuv's default")
  t.equal(threadPoolSize({ UV_THREADPOOL_SIZE: '16' }), 16)
  t.equal(threadPoolSize({ UV_THREADPOOL_SIZE: 'many' }), 4)
})

t.test('at most `concurrency` run at once; the next starts when one ends', async (t) => {
  const gate = new HashGate({ concurrency: 2, maxQueue: 10, maxWaitMs: 60_000 })
  const held = [heldWork(), heldWork(), heldWork()]
  const results = held.map((hold) => gate.run(hold.work))
  await Promise.all([held[0]!.started, held[1]!.started])
  t.same(gate.load, { running: 2, queued: 1 })
  let thirdStarted = false
  void held[2]!.started.then(() => { thirdStarted = true })
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(thirdStarted, false, 'the third waits')
  held[0]!.release()
  await held[2]!.started
  t.same(gate.load, { running: 2, queued: 0 }, 'the first one\'s turn passed to the third')
  held[1]!.release()
  held[2]!.release()
  t.same(await Promise.all(results), ['done', 'done', 'done'])
  t.same(gate.load, { running: 0, queued: 0 })
})

t.test('a full queue refuses at once, with a Retry-After of at least a second', async (t) => {
  const gate = new HashGate({ concurrency: 1, maxQueue: 1, maxWaitMs: 60_000 })
  const running = heldWork()
  const queued = heldWork()
  const first = gate.run(running.work)
  const second = gate.run(queued.work)
  const started = performance.now()
  const error = await gate.run(async () => t.fail('refused work must not run')).catch((caught: unknown) => caught)
  t.ok(performance.now() - started < 50, 'answered at once')
  t.match(error, refusal('busy'))
  t.ok((error as PasswordWorkRefused).retryAfterSeconds >= 1)
  running.release()
  queued.release()
  await Promise.all([first, second])
})

/** Work that takes `ms` of real time, as a hash on a slow machine does. */
const slowWork = (ms: number) => async (): Promise<string> => {
  await new Promise((resolve) => setTimeout(resolve, ms))
  return 'hashed'
}

t.test('every hash slower than the wait: the slots\' next turns are admitted and finish, only the excess is refused', async (t) => {
  const gate = new HashGate({ concurrency: 2, maxQueue: 100, maxWaitMs: 200 })
  // Teach the gate that a hash takes 300 ms here, longer than the whole wait.
  await gate.run(slowWork(300))
  const started = performance.now()
  const burst = Array.from({ length: 7 }, () => gate.run(slowWork(300)).then(
    (result) => ({ result, at: performance.now() - started }),
    (error: unknown) => ({ error, at: performance.now() - started })))
  t.same(gate.load, { running: 2, queued: 2 }, 'two run, and one turn per slot waits, although it will wait 300 ms')
  const answers = await Promise.all(burst)
  const done = answers.filter((answer) => 'result' in answer)
  const refused = answers.filter((answer) => 'error' in answer)
  t.equal(done.length, 4, 'the two running and the two next turns finish')
  const finished = done.map((answer) => answer.at).sort((a, b) => a - b)
  t.ok(finished[2]! >= 550, `the next turns once the running hashes and their own are done (${finished.map((at) => at.toFixed(0)).join(', ')} ms)`)
  t.equal(refused.length, 3, 'the excess is refused')
  for (const answer of refused) {
    t.match('error' in answer ? answer.error : null, refusal('busy'))
    t.ok(answer.at < 100, `at once, not after a wait (${answer.at.toFixed(0)} ms)`)
    t.ok(('error' in answer ? answer.error as PasswordWorkRefused : null)?.retryAfterSeconds === 1, 'Retry-After: the queue drains within a second')
  }
  t.same(gate.load, { running: 0, queued: 0 })
})

t.test('behind the next turns, work that would wait past the longest wait is refused: at once when the recent hashes say so, else when the wait is up', async (t) => {
  const gate = new HashGate({ concurrency: 1, maxQueue: 100, maxWaitMs: 400 })
  // Teach the gate that a hash takes about 150 ms here.
  await gate.run(slowWork(150))
  const running = heldWork()
  const first = gate.run(running.work)
  const nextTurn = gate.run(async () => 'next turn')
  const behind = gate.run(async () => 'second')
  t.same(gate.load, { running: 1, queued: 2 }, 'two hashes ahead (about 300 ms) is within the 400 ms wait')
  const started = performance.now()
  await t.rejects(gate.run(async () => 'third'), refusal('busy'), 'three hashes ahead (about 450 ms) is past it: refused at once')
  t.ok(performance.now() - started < 50)
  await t.rejects(behind, refusal('busy'), 'the one behind the next turn gave up when its wait was up')
  t.ok(performance.now() - started >= 350, `after ${(performance.now() - started).toFixed(0)} ms`)
  t.same(gate.load, { running: 1, queued: 1 }, 'the running slot\'s next turn still waits, however long the running hash takes')
  running.release()
  t.equal(await nextTurn, 'next turn', 'and runs when the slot frees')
  await first
})

t.test('with the caller\'s wait known, nothing is queued whose answer would come after the caller gave up', async (t) => {
  const gate = new HashGate({ concurrency: 1, maxQueue: 100, maxWaitMs: 60_000, answerWithinMs: 500 })
  // Teach the gate that a hash takes about 200 ms here.
  await gate.run(slowWork(200))
  const running = heldWork()
  const first = gate.run(running.work)
  const nextTurn = gate.run(async () => 'next turn')
  t.same(gate.load, { running: 1, queued: 1 }, 'one hash ahead and its own (about 400 ms) are answered within 500 ms')
  const started = performance.now()
  await t.rejects(gate.run(async () => t.fail('must not run')), refusal('busy'),
    'two ahead and its own (about 600 ms) would be answered after the caller gave up: refused at once, not a 504 later')
  t.ok(performance.now() - started < 50)
  running.release()
  t.equal(await nextTurn, 'next turn')
  await first
})

t.test('a queued hash whose turn comes too late to be answered in time is refused then, and the turn passes to the next', async (t) => {
  const gate = new HashGate({ concurrency: 1, maxQueue: 100, maxWaitMs: 60_000, answerWithinMs: 900 })
  await gate.run(slowWork(200))
  const running = heldWork()
  const first = gate.run(running.work)
  let lateRan = false
  const late = gate.run(async () => { lateRan = true })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const later = gate.run(async () => 'later')
  t.same(gate.load, { running: 1, queued: 2 })
  // The running hash takes far longer than the others did: the first in the queue has now waited
  // 750 ms, and with its own hash would be answered after the 900 ms; the second, 450 ms, would not.
  await new Promise((resolve) => setTimeout(resolve, 450))
  running.release()
  await t.rejects(late, refusal('busy'), 'refused at its turn, before its hash')
  t.equal(await later, 'later', 'the turn went to the one that can still be answered')
  t.equal(lateRan, false)
  await first
  t.same(gate.load, { running: 0, queued: 0 })
})

t.test('queued work whose client went away is dropped before it runs, and frees its place', async (t) => {
  const gate = new HashGate({ concurrency: 1, maxQueue: 1, maxWaitMs: 60_000 })
  const running = heldWork()
  const first = gate.run(running.work)
  const client = new AbortController()
  let ran = false
  const abandoned = gate.run(async () => { ran = true }, client.signal)
  t.same(gate.load, { running: 1, queued: 1 })
  client.abort()
  await t.rejects(abandoned, refusal('client-gone'))
  t.same(gate.load, { running: 1, queued: 0 }, 'its place in the queue is free again')
  const next = gate.run(async () => 'next')
  running.release()
  t.equal(await next, 'next')
  await first
  t.equal(ran, false, 'the abandoned work never ran')
  await t.rejects(gate.run(async () => t.fail('must not run'), client.signal), refusal('client-gone'), 'nor does work whose client is gone already')
})
