import t from 'tap'
import { browserSkip } from '../../fixtures/browsers/chromium.js'
import { faketimeSkip } from '../../fixtures/servers/faketime.js'
import { runOidcJourneys } from '../../fixtures/oidc/oidc-journeys.js'
import { openidClient } from '../../fixtures/oidc/openid-client-party.js'

t.test('openid-client signs in through the embedded provider, on the page, in real Chromium', { skip: browserSkip || faketimeSkip }, async (t) => {
  await runOidcJourneys(t, openidClient)
})
