import t from 'tap'
import { runJourneys } from '../../fixtures/browsers/engine-journeys.js'
import { webkit } from '../../fixtures/browsers/webkit.js'

// WebKit's account journeys; its page journeys, and why they are apart, are in webkit.test.ts.
t.test('the account journeys in WebKitGTK', { skip: webkit.skip }, async (t) => {
  await runJourneys(t, webkit, { webAuthn: false }, ['accounts'])
})
