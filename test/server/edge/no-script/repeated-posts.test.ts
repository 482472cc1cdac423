import t from 'tap'
import { RepeatedPosts } from '../../../../server/edge/no-script/repeated-posts.js'

const WINDOW_MS = 60_000

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

t.test('a repeat within the window gets the first answer; after it, a run of its own', async (t) => {
  // A window far longer than the test, and its end given as the call's clock: a machine slowed by
  // other work can neither close the window early nor leave it open.
  const repeats = new RepeatedPosts<number>(WINDOW_MS)
  let runs = 0
  const run = async (): Promise<number> => { runs++; await sleep(10); return runs }
  const [a, b] = await Promise.all([repeats.once('k', run), repeats.once('k', run)])
  t.same([a.answer, a.repeated, b.answer, b.repeated], [1, false, 1, true])
  t.same(await repeats.once('k', run), { answer: 1, repeated: true })
  t.same(await repeats.once('k', run, Date.now() + WINDOW_MS), { answer: 2, repeated: false }, 'the window has passed')
})

t.test('a failure is the repeat\'s failure too', async (t) => {
  const repeats = new RepeatedPosts<number>()
  const failing = async (): Promise<number> => { await sleep(5); throw new Error('down') }
  const results = await Promise.allSettled([repeats.once('k', failing), repeats.once('k', async () => 1)])
  t.same(results.map((result) => result.status), ['rejected', 'rejected'])
})

t.test('bounded: past its capacity a post runs unremembered, and ended posts are forgotten to make room', async (t) => {
  const repeats = new RepeatedPosts<number>(WINDOW_MS, 2)
  await repeats.once('a', async () => 1)
  await repeats.once('b', async () => 2)
  t.same(await repeats.once('c', async () => 3), { answer: 3, repeated: false })
  t.equal(repeats.size, 2)
  t.same(await repeats.once('c', async () => 4), { answer: 4, repeated: false }, 'c was not remembered')
  await repeats.once('d', async () => 5, Date.now() + WINDOW_MS)
  t.equal(repeats.size, 1, 'the ended ones forgotten, d remembered')
})
