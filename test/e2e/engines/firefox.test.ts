import t from 'tap'
import { runJourneys } from '../../fixtures/browsers/engine-journeys.js'
import { firefox } from '../../fixtures/browsers/firefox.js'

// Firefox ESR has WebAuthn, so the page offers passkeys; WebDriver BiDi has no virtual authenticator to finish one (docs/passkeys.md).
t.test('the core journeys in Firefox ESR', { skip: firefox.skip }, async (t) => {
  await runJourneys(t, firefox, { webAuthn: true })
})
