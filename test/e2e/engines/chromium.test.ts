import t from 'tap'
import { chromiumEngine } from '../../fixtures/browsers/chromium.js'
import { runJourneys } from '../../fixtures/browsers/engine-journeys.js'

/*
 * The page journeys in Chromium through the same visitor as Firefox's and
 * WebKit's, for parity (a failure in one engine only is the engine's) and so
 * that the Chromium visitor is kept working. Its account journeys run in
 * Chromium's own suites already (test/e2e/sign-in/journeys.test.ts,
 * test/e2e/second-factor/second-factor.test.ts,
 * test/e2e/challenge/challenge.test.ts): here they would add some 25 s to CI.
 */
t.test('the page journeys in Chromium', { skip: chromiumEngine.skip }, async (t) => {
  await runJourneys(t, chromiumEngine, { webAuthn: true }, ['page'])
})
