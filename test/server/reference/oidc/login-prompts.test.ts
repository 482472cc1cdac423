import * as oauth from 'oauth4webapi'
import { decodeJwt } from 'jose'
import t, { type Test } from 'tap'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD } from '../../../fixtures/servers/reference.js'
import {
  atClient, authorizationUrl, CONFIDENTIAL_CLIENT, decideConsent, discover, exchangeCode, ProviderBrowser, PUBLIC_CLIENT, startProvider,
  type Landing, type ProviderUnderTest
} from '../../../fixtures/oidc/provider-browser.js'

interface SignedIn { provider: ProviderUnderTest, as: oauth.AuthorizationServer, browser: ProviderBrowser }

/** The provider with a visitor signed in on the page a few seconds before any request. */
async function signedIn (t: Test, email: string): Promise<SignedIn> {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT, PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, email)
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn(email, GOOD_PASSWORD)
  // max_age counts whole seconds from auth_time: a second passes, so that max_age=0 finds the session too old.
  await new Promise((resolve) => setTimeout(resolve, 1100))
  return { provider, as, browser }
}

function pageRedirect (landing: Landing): string {
  if (landing.kind !== 'page') throw new Error(`expected the page, got ${JSON.stringify(landing)}`)
  return landing.url.searchParams.get('redirect')!
}

/** The ID token a public client gets for an authorization response. */
async function idTokenClaims (setup: SignedIn, callback: URL, request: { state: string, verifier: string, nonce: string }): Promise<Record<string, unknown>> {
  const response = await exchangeCode(setup.provider, setup.as, PUBLIC_CLIENT, callback, request)
  const result = await oauth.processAuthorizationCodeResponse(setup.as, { client_id: PUBLIC_CLIENT.client_id }, response, { expectedNonce: request.nonce, requireIdToken: true })
  return decodeJwt(result.id_token!)
}

t.test('prompt=login sends a signed-in visitor to the page, and the new sign-in finishes it', async (t) => {
  const setup = await signedIn(t, 'pia@example.test')
  const before = decodeJwt(setup.browser.cookies.get('auth')!.value).auth_time as number
  const request = await authorizationUrl(setup.as, PUBLIC_CLIENT, { prompt: 'login' })
  const redirect = pageRedirect(await setup.browser.visit(request.url))
  t.equal((await setup.browser.visit(redirect)).kind, 'page', 'the session from before the request does not finish it')
  await setup.browser.signIn('pia@example.test', GOOD_PASSWORD)
  const claims = await idTokenClaims(setup, atClient(await setup.browser.visit(redirect)), request)
  t.ok((claims.auth_time as number) > before, 'auth_time is the new sign-in\'s')
})

t.test('prompt=login in the very second of the sign-in still shows the page: the session is told by its id, not its second', async (t) => {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT, PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, 'quick@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('quick@example.test', GOOD_PASSWORD)
  const request = await authorizationUrl(as, PUBLIC_CLIENT, { prompt: 'login' })
  const redirect = pageRedirect(await browser.visit(request.url))
  t.equal((await browser.visit(redirect)).kind, 'page', 'back without a new sign-in: the page again')
  await browser.signIn('quick@example.test', GOOD_PASSWORD)
  t.equal((await browser.visit(redirect)).kind, 'client', 'a new sign-in finishes it, whatever its second')
})

t.test('max_age older than the session sends the visitor to the page; a young enough session passes', async (t) => {
  const setup = await signedIn(t, 'max@example.test')
  const young = await authorizationUrl(setup.as, PUBLIC_CLIENT, { max_age: '3600' })
  t.equal((await setup.browser.visit(young.url)).kind, 'client')
  const old = await authorizationUrl(setup.as, PUBLIC_CLIENT, { max_age: '0' })
  const redirect = pageRedirect(await setup.browser.visit(old.url))
  await setup.browser.signIn('max@example.test', GOOD_PASSWORD)
  t.equal((await setup.browser.visit(redirect)).kind, 'client', 'the sign-in since the request finishes it, once')
})

t.test('acr_values asking mfa: one trip to the page with the step-up mark; an account without a second factor gets what it reached', async (t) => {
  const setup = await signedIn(t, 'uma@example.test')
  const request = await authorizationUrl(setup.as, PUBLIC_CLIENT, { acr_values: 'urn:threshold:acr:mfa' })
  const redirect = pageRedirect(await setup.browser.visit(request.url))
  t.equal(setup.browser.cookies.get('oidc_step_up')?.path, '/accounts', 'the mark the sign-in calls read')
  t.match(setup.browser.cookieHeader('/accounts/v2/login'), /oidc_step_up=/)
  t.notMatch(setup.browser.cookieHeader('/oidc/auth'), /oidc_step_up=/, 'nowhere else')
  t.match(await setup.browser.signIn('uma@example.test', GOOD_PASSWORD), { auth: String }, 'no second factor to ask for')
  const callback = atClient(await setup.browser.visit(redirect))
  t.match(await idTokenClaims(setup, callback, request), { acr: 'urn:threshold:acr:1fa', amr: ['pwd'] })
  t.notOk(setup.browser.cookies.has('oidc_step_up'), 'the mark is cleared once the login is done')
})

t.test('an essential acr that cannot be reached ends the request with unmet_authentication_requirements', async (t) => {
  const setup = await signedIn(t, 'ess@example.test')
  const claims = JSON.stringify({ id_token: { acr: { essential: true, values: ['urn:threshold:acr:mfa'] } } })
  const request = await authorizationUrl(setup.as, PUBLIC_CLIENT, { claims })
  const redirect = pageRedirect(await setup.browser.visit(request.url))
  await setup.browser.signIn('ess@example.test', GOOD_PASSWORD)
  const callback = atClient(await setup.browser.visit(redirect))
  t.equal(callback.searchParams.get('error'), 'unmet_authentication_requirements')
  t.notOk(callback.searchParams.has('code'))
})

t.test('a visitor who denies consent sends the client access_denied and no code', async (t) => {
  const setup = await signedIn(t, 'den@example.test')
  const request = await authorizationUrl(setup.as, CONFIDENTIAL_CLIENT)
  const callback = atClient(await decideConsent(setup.browser, await setup.browser.visit(request.url), 'deny'))
  t.equal(callback.searchParams.get('error'), 'access_denied')
  t.equal(callback.searchParams.get('state'), request.state)
  t.notOk(callback.searchParams.has('code'))
})

t.test('a consent post from another browser, without the interaction cookie, decides nothing', async (t) => {
  const setup = await signedIn(t, 'csrf@example.test')
  const request = await authorizationUrl(setup.as, CONFIDENTIAL_CLIENT)
  const consent = await setup.browser.visit(request.url)
  if (consent.kind !== 'answer') throw new Error(JSON.stringify(consent))
  const attacker = new ProviderBrowser(setup.provider.publicFetch)
  const forged = await decideConsent(attacker, consent, 'allow')
  t.match(forged, { kind: 'answer', status: 400 })
  t.match(JSON.parse((forged as { body: string }).body), { page: 'error' })
})
