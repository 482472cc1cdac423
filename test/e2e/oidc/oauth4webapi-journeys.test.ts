import t from 'tap'
import { browserSkip } from '../../fixtures/browsers/chromium.js'
import { faketimeSkip } from '../../fixtures/servers/faketime.js'
import { runOidcJourneys } from '../../fixtures/oidc/oidc-journeys.js'
import { oauth4webapi } from '../../fixtures/oidc/oauth4webapi-party.js'

t.test('oauth4webapi signs in through the embedded provider, on the page, in real Chromium', { skip: browserSkip || faketimeSkip }, async (t) => {
  await runOidcJourneys(t, oauth4webapi)
})
