import '../../fixtures/page/dom.js'
import { cleanup, render, screen } from '@testing-library/react'
import { userEvent } from '@testing-library/user-event'
import t from 'tap'
import { LazyPart } from '../../../client/components/LazyPart.js'
import { CHUNK_RETRIES, CHUNK_RETRY_PAUSE_MS, lazyChunk, preloadChunk } from '../../../client/page/load-chunk.js'
import { InLanguage } from '../../fixtures/languages/messages.js'
import { eventually } from '../../fixtures/page/page.js'

t.afterEach(() => cleanup())

const FAILED = 'This part of the page could not be loaded. Check your connection and try again.'
const Part = () => <h2>The part</h2>

/** A chunk's import that fails `failures` times (Infinity: always), as a dropped connection does, and counts its calls. */
function chunkFailing (failures: number) {
  const calls = { count: 0 }
  const load = async () => {
    calls.count++
    if (calls.count <= failures) throw new TypeError('Failed to fetch dynamically imported module: /assets/Part-TEST.js')
    return { default: Part }
  }
  return { calls, load }
}

/** Long enough for every retry's pause. */
const ALL_RETRIES_MS = (CHUNK_RETRIES + 1) * CHUNK_RETRY_PAUSE_MS

t.test('a chunk that fails once is loaded by the retry: the part shows and no message', async (t) => {
  const { calls, load } = chunkFailing(1)
  const Lazy = lazyChunk(load)
  render(<InLanguage><LazyPart fallback={<p>Loading</p>}><Lazy /></LazyPart></InLanguage>)
  t.ok(await screen.findByRole('heading', { name: 'The part' }, { timeout: ALL_RETRIES_MS }))
  t.equal(screen.queryByRole('alert'), null)
  t.equal(calls.count, 2)
})

t.test('a chunk that always fails: the message in its place, with focus, and the button tries again', async (t) => {
  const failing = chunkFailing(CHUNK_RETRIES + 1)
  const Lazy = lazyChunk(failing.load)
  const user = userEvent.setup()
  render(<InLanguage><LazyPart fallback={<p>Loading</p>}><Lazy /></LazyPart></InLanguage>)
  const alert = await screen.findByRole('alert', {}, { timeout: ALL_RETRIES_MS + 1000 })
  t.match(alert.textContent, FAILED)
  // The message takes the focus in an effect after it shows: on a busy machine, a moment after findByRole sees it.
  await eventually(t, () => document.activeElement?.textContent, FAILED, 'focus is on the message')
  t.equal(failing.calls.count, CHUNK_RETRIES + 1, 'tried, then tried again CHUNK_RETRIES times')
  t.equal(screen.queryByRole('heading', { name: 'The part' }), null)

  // The connection is back: the button asks for the chunk afresh.
  await user.click(screen.getByRole('button', { name: 'Try again' }))
  t.ok(await screen.findByRole('heading', { name: 'The part' }))
  t.equal(screen.queryByRole('alert'), null)
  t.equal(failing.calls.count, CHUNK_RETRIES + 2)
})

t.test('a part whose chunk was preloaded renders at once, never its fallback, and its chunk is asked for once', async (t) => {
  const { calls, load } = chunkFailing(0)
  const Lazy = lazyChunk(load)
  t.equal(await preloadChunk(Lazy), true, 'here')
  render(<InLanguage><LazyPart fallback={<p>Loading</p>}><Lazy /></LazyPart></InLanguage>)
  // Synchronously, in the first render: what the page's hydration relies on (client/start-page.tsx).
  t.ok(screen.getByRole('heading', { name: 'The part' }))
  t.equal(screen.queryByText('Loading'), null)
  t.equal(calls.count, 1)
})

t.test('a preload whose chunk always fails resolves all the same, saying so (the page keeps the server\'s form), and the part shows the message', async (t) => {
  const failing = chunkFailing(Infinity)
  const Lazy = lazyChunk(failing.load)
  t.equal(await preloadChunk(Lazy), false, 'not here')
  t.equal(failing.calls.count, CHUNK_RETRIES + 1, 'tried with its retries')
  render(<InLanguage><LazyPart fallback={<p>Loading</p>}><Lazy /></LazyPart></InLanguage>)
  t.match((await screen.findByRole('alert', {}, { timeout: ALL_RETRIES_MS + 1000 })).textContent, FAILED)
})

t.test('preloading a component that is not lazy (the server renderer\'s) does nothing', async (t) => {
  t.equal(await preloadChunk(Part), true, 'here already')
  render(<InLanguage><LazyPart fallback={<p>Loading</p>}><Part /></LazyPart></InLanguage>)
  t.ok(screen.getByRole('heading', { name: 'The part' }))
})
