import t from 'tap'
import { browserSkip } from '../../fixtures/browsers/chromium.js'
import { faketimeSkip } from '../../fixtures/servers/faketime.js'
import { runOidcJourneys } from '../../fixtures/oidc/oidc-journeys.js'
import { authlib, authlibSkip } from '../../fixtures/oidc/authlib-party.js'

t.test('Authlib signs in through the embedded provider, on the page, in real Chromium', { skip: browserSkip || faketimeSkip || authlibSkip }, async (t) => {
  await runOidcJourneys(t, authlib(t))
})
