import t, { type Test } from 'tap'
import { RangeAnswer, rangeKey } from '../../../../server/reference/breached-passwords/range-answer.js'
import {
  RANGE_ANSWER_MAX_BYTES,
  RANGE_CACHE_TTL_MS,
  RANGE_FAILURE_PAUSE_MS,
  RangeClient,
  type RangeFailure
} from '../../../../server/reference/breached-passwords/range-client.js'
import { sha1Hex, startRangeServer, type RangeServer } from '../../../fixtures/breached-passwords/range-server.js'

const BREACHED = 'hunter2-but-longer'
const CLEAN = 'a clean passphrase nobody has leaked'

interface Setup {
  readonly server: RangeServer
  readonly client: RangeClient
  readonly calls: Array<'ok' | RangeFailure>
  readonly clock: { value: number }
}

/** Generous (the machine may be busy) except where a test waits for the timeout. */
async function setUp (t: Test, timeoutMs = 5000): Promise<Setup> {
  const server = await startRangeServer(t)
  server.breach(BREACHED, 1234)
  const calls: Array<'ok' | RangeFailure> = []
  const clock = { value: 1_000_000 }
  const client = new RangeClient({ rangeUrl: server.url, timeoutMs, onRangeCall: (result) => calls.push(result), now: () => clock.value })
  return { server, client, calls, clock }
}

t.test('a password in the corpus is breached with its count; one that is not is clean', async (t) => {
  const { client } = await setUp(t)
  t.same(await client.lookup(BREACHED), { outcome: 'breached', count: 1234, cached: false })
  t.same(await client.lookup(CLEAN), { outcome: 'clean', cached: false })
})

t.test('the attack view: only five upper-case hex digits of the SHA-1 leave, with Add-Padding: true, and never the rest of the hash', async (t) => {
  const { server, client } = await setUp(t)
  await client.lookup(BREACHED)
  t.equal(server.requests.length, 1)
  const [request] = server.requests
  t.equal(request!.path, `/range/${sha1Hex(BREACHED).slice(0, 5)}`)
  t.match(request!.path, /^\/range\/[0-9A-F]{5}$/)
  t.equal(request!.headers['add-padding'], 'true')
  const everything = JSON.stringify(request)
  t.notOk(everything.includes(sha1Hex(BREACHED).slice(5, 12)), 'no digit of the suffix is sent')
  t.notOk(everything.includes(sha1Hex(BREACHED).toLowerCase().slice(5, 12)), 'nor in lower case')
  t.notOk(everything.includes(BREACHED), 'nor the password')
})

t.test('padding lines (count 0) are never a hit, and CRLF or LF answers read alike', async (t) => {
  const { suffix } = rangeKey(CLEAN)
  const padded = RangeAnswer.parse(`${'A'.repeat(35)}:3\r\n${suffix}:0\r\n`)!
  t.equal(padded.count(suffix), 0, 'the padding line with our suffix is not a hit')
  t.equal(padded.count('A'.repeat(35)), 3)
  t.equal(RangeAnswer.parse(`${suffix.toLowerCase()}:7\n`)!.count(suffix), 7, 'LF, lower-case hex')
  t.equal(RangeAnswer.parse(`${suffix}:7\r\n\r\n`)!.count(suffix), 7, 'a trailing empty line')
  for (const empty of ['', '\r\n', '\n\n']) t.equal(RangeAnswer.parse(empty), null, `${JSON.stringify(empty)}: no real range is empty, so an empty answer is not one`)
  t.equal(RangeAnswer.parse(`${'A'.repeat(35)}:0\r\n`)?.count(suffix), 0, 'a range of padding lines alone is a range without hits')
  for (const garbage of [`${suffix}`, `${suffix}:`, `${suffix}:-1`, `${suffix.slice(1)}:1`, `${suffix}:1 trailing`, '<html>', `${suffix}:12345678901`]) {
    t.equal(RangeAnswer.parse(`${'B'.repeat(35)}:1\r\n${garbage}\r\n`), null, JSON.stringify(garbage))
  }
})

t.test('a burst of lookups of one password makes one range call: later ones from the cache, concurrent ones share the call', async (t) => {
  const { server, client, calls } = await setUp(t)
  const concurrent = await Promise.all(Array.from({ length: 20 }, () => client.lookup(BREACHED)))
  t.ok(concurrent.every((lookup) => lookup.outcome === 'breached'))
  t.equal(server.requests.length, 1, 'twenty concurrent lookups: one call')
  for (let i = 0; i < 30; i++) t.same(await client.lookup(BREACHED), { outcome: 'breached', count: 1234, cached: true })
  t.equal(server.requests.length, 1, 'thirty more: still one call')
  t.same(calls, ['ok'])
})

t.test('a cached range answer expires after RANGE_CACHE_TTL_MS', async (t) => {
  const { server, client, clock } = await setUp(t)
  await client.lookup(CLEAN)
  clock.value += RANGE_CACHE_TTL_MS - 1
  t.equal((await client.lookup(CLEAN)).cached, true)
  clock.value += RANGE_CACHE_TTL_MS
  t.equal((await client.lookup(CLEAN)).cached, false)
  t.equal(server.requests.length, 2)
})

const failures: Array<[string, (server: RangeServer) => Promise<void> | void, RangeFailure]> = [
  ['never answers', (server) => { server.mode = 'hang' }, 'timeout'],
  ['sends the headers and then stalls', (server) => { server.mode = 'trickle' }, 'timeout'],
  ['answers 503', (server) => { server.mode = 'status' }, 'bad_status'],
  ['answers an HTML page with 200', (server) => { server.mode = 'html' }, 'malformed'],
  ['answers malformed lines', (server) => { server.mode = 'malformed' }, 'malformed'],
  ['answers an empty 200', (server) => { server.mode = 'empty' }, 'malformed'],
  ['answers without end', (server) => { server.mode = 'huge' }, 'too_large'],
  ['redirects', (server) => { server.mode = 'redirect' }, 'unreachable'],
  ['is down', async (server) => { await server.down() }, 'unreachable']
]

for (const [name, breakIt, reason] of failures) {
  t.test(`a range service that ${name} is unavailable (${reason}), never clean, within the timeout`, async (t) => {
    const { server, client, calls } = await setUp(t, 400)
    await breakIt(server)
    const started = performance.now()
    t.same(await client.lookup(BREACHED), { outcome: 'unavailable', reason, cached: false })
    t.ok(performance.now() - started < 400 + 600, 'no longer than the timeout, give or take')
    t.same(calls, [reason])
  })
}

t.test(`after a failure, lookups answer unavailable at once for RANGE_FAILURE_PAUSE_MS, then ask again`, async (t) => {
  const { server, client, clock } = await setUp(t)
  server.mode = 'status'
  await client.lookup(BREACHED)
  server.mode = 'ok'
  t.same(await client.lookup(CLEAN), { outcome: 'unavailable', reason: 'paused', cached: false })
  t.equal(server.requests.length, 1, 'no call while paused')
  clock.value += RANGE_FAILURE_PAUSE_MS
  t.same(await client.lookup(CLEAN), { outcome: 'clean', cached: false })
})

t.test('failed answers are not cached', async (t) => {
  const { server, client, clock } = await setUp(t)
  server.mode = 'html'
  await client.lookup(BREACHED)
  server.mode = 'ok'
  clock.value += RANGE_FAILURE_PAUSE_MS
  t.equal((await client.lookup(BREACHED)).outcome, 'breached')
})

t.test(`an answer of more than ${RANGE_ANSWER_MAX_BYTES} bytes is refused, while a real padded answer fits well within`, async (t) => {
  const { server } = await setUp(t)
  const response = await fetch(`${server.url}/${sha1Hex(CLEAN).slice(0, 5)}`, { headers: { 'add-padding': 'true' } })
  const body = await response.text()
  t.ok(body.length < RANGE_ANSWER_MAX_BYTES / 4, `${body.length} bytes`)
  t.equal(body.split('\r\n').length, 900, 'padded to 900 lines, CRLF')
  t.ok(body.split('\r\n').some((line) => line.endsWith(':0')), 'with padding lines')
})
