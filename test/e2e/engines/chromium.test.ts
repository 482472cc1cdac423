import t from 'tap'
import { chromiumEngine } from '../../fixtures/browsers/chromium.js'
import { runJourneys } from '../../fixtures/browsers/engine-journeys.js'

// The same journeys as Firefox's and WebKit's, for parity: a failure in one engine only is the engine's.
t.test('the core journeys in Chromium', { skip: chromiumEngine.skip }, async (t) => {
  await runJourneys(t, chromiumEngine, { webAuthn: true })
})
