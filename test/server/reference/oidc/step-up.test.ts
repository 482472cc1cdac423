import * as oauth from 'oauth4webapi'
import { decodeJwt } from 'jose'
import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { registerAccount, verifyAddress } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD } from '../../../fixtures/servers/reference.js'
import {
  atClient, authorizationUrl, discover, exchangeCode, ProviderBrowser, PUBLIC_CLIENT, startProvider
} from '../../../fixtures/oidc/provider-browser.js'

/** The service's clock, moved by whole 30-second steps so that each authenticator code is a new one. */
class Clock {
  value = Math.floor(Date.now() / 30_000) * 30_000 + 1000
  now = (): number => this.value
  nextStep (): void { this.value += 30_000 }
}

t.test('acr_values mfa asks a remembered browser for the second factor, and the ID token says mfa', async (t) => {
  const clock = new Clock()
  const provider = await startProvider(t, [PUBLIC_CLIENT], { now: clock.now })
  const { reference } = provider
  const email = 'sam@example.test'
  await verifyAddress(reference.base, reference.dataDir, email, await registerAccount(reference.base, email))
  const enrolling = new ServiceBrowser(reference.base)
  const bearer = await enrolling.bearerAfterSignIn(email)
  const secret = String((await enrolling.post('second-factor/enrol/start', {}, bearer)).body.secret)
  const code = (): string => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock.value })
  t.equal((await enrolling.post('second-factor/enrol/confirm', { code: code() }, bearer)).status, 200)
  clock.nextStep()

  const browser = new ProviderBrowser(provider.publicFetch)
  const challenged = await browser.signIn(email, GOOD_PASSWORD)
  t.match(await browser.secondFactor({ challenge: challenged.challenge, code: code(), remember_browser: true }), { auth: String })
  t.ok(browser.cookies.has('second_factor_browser'), 'a remembered browser')
  clock.nextStep()
  browser.cookies.delete('auth')
  browser.cookies.delete('refresh')
  const remembered = await browser.signIn(email, GOOD_PASSWORD)
  t.match(decodeJwt(String(remembered.auth)), { amr: ['pwd'] }, 'the remembered browser signs in with the password alone')
  // The request comes later than that sign-in (the clock stands still otherwise).
  clock.nextStep()

  const as = await discover(provider.publicFetch)
  const request = await authorizationUrl(as, PUBLIC_CLIENT, { acr_values: 'urn:threshold:acr:mfa' })
  const toPage = await browser.visit(request.url)
  if (toPage.kind !== 'page') throw new Error(JSON.stringify(toPage))
  const asked = await browser.signIn(email, GOOD_PASSWORD)
  t.match(asked, { second_factor: 'code', challenge: String }, 'with the step-up mark, the remembered browser is asked for the code')
  clock.nextStep()
  t.match(await browser.secondFactor({ challenge: asked.challenge, code: code() }), { auth: String })
  const callback = atClient(await browser.visit(toPage.url.searchParams.get('redirect')!))
  const response = await exchangeCode(provider, as, PUBLIC_CLIENT, callback, request)
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: PUBLIC_CLIENT.client_id }, response, { expectedNonce: request.nonce, requireIdToken: true })
  t.match(decodeJwt(result.id_token!), { acr: 'urn:threshold:acr:mfa', amr: ['pwd', 'otp', 'mfa'] })
  t.notOk(browser.cookies.has('oidc_step_up'), 'the mark is gone once the login is done')

  browser.cookies.delete('auth')
  browser.cookies.delete('refresh')
  t.match(await browser.signIn(email, GOOD_PASSWORD), { auth: String }, 'without the mark, the remembered browser skips the code again')
})
