import t from 'tap'
import { runJourneys } from '../../fixtures/browsers/engine-journeys.js'
import { webkit } from '../../fixtures/browsers/webkit.js'

// MiniBrowser has no WebAuthn (no PublicKeyCredential), so the page drops its passkey button after hydration.
t.test('the core journeys in WebKitGTK', { skip: webkit.skip }, async (t) => {
  await runJourneys(t, webkit, { webAuthn: false })
})
