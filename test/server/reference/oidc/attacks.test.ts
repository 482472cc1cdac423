import { createHash } from 'node:crypto'
import * as oauth from 'oauth4webapi'
import t, { type Test } from 'tap'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import {
  atClient, authorizationUrl, CONFIDENTIAL_CLIENT, decideConsent, discover, exchangeCode, ProviderBrowser, PUBLIC_CLIENT, startProvider,
  TEST_CLIENT_SECRET, type ProviderUnderTest
} from '../../../fixtures/oidc/provider-browser.js'

/** The provider with both clients and a signed-in visitor, who has consented for the confidential client once. */
async function signedIn (t: Test): Promise<{ provider: ProviderUnderTest, as: oauth.AuthorizationServer, browser: ProviderBrowser }> {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT, PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, 'eve.target@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('eve.target@example.test', GOOD_PASSWORD)
  const first = await authorizationUrl(as, CONFIDENTIAL_CLIENT)
  atClient(await decideConsent(browser, await browser.visit(first.url), 'allow'))
  return { provider, as, browser }
}

/** A token answer's status and OAuth error, and whether it issued anything. */
async function tokenError (response: Response): Promise<{ status: number, error: unknown, issued: boolean }> {
  const body = await response.json() as Record<string, unknown>
  return { status: response.status, error: body.error, issued: 'access_token' in body || 'id_token' in body }
}

t.test('a redirect_uri the client did not register is refused on a page, never followed', async (t) => {
  const { as, browser } = await signedIn(t)
  const request = await authorizationUrl(as, CONFIDENTIAL_CLIENT, { redirect_uri: 'https://attacker.example.test/callback' })
  const landing = await browser.visit(request.url)
  if (landing.kind !== 'answer') throw new Error(`followed to ${JSON.stringify(landing)}`)
  t.equal(landing.status, 400)
  t.match(landing.type, /^application\/vnd\.threshold\.provider-page\+json/)
  t.match(JSON.parse(landing.body), { page: 'error', error: 'invalid_redirect_uri' })
  t.notMatch(landing.body, /<html/i, 'no markup from the reference service')
})

t.test('a code is exchanged once: its reuse is refused and revokes what it issued', async (t) => {
  const { provider, as, browser } = await signedIn(t)
  const request = await authorizationUrl(as, CONFIDENTIAL_CLIENT)
  const callback = atClient(await browser.visit(request.url))
  const first = await oauth.processAuthorizationCodeResponse(as, { client_id: CONFIDENTIAL_CLIENT.client_id },
    await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, callback, request), { expectedNonce: request.nonce, requireIdToken: true })
  t.match(await tokenError(await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, callback, request)), { status: 400, error: 'invalid_grant', issued: false })
  const userinfo = await oauth.userInfoRequest(as, { client_id: CONFIDENTIAL_CLIENT.client_id }, first.access_token, { [oauth.customFetch]: provider.publicFetch })
  t.equal(userinfo.status, 401, 'the first exchange\'s access token is revoked with the reused code')
})

t.test('a missing or wrong PKCE verifier is refused, and nothing is issued', async (t) => {
  const { provider, as, browser } = await signedIn(t)
  const request = await authorizationUrl(as, CONFIDENTIAL_CLIENT)
  const callback = atClient(await browser.visit(request.url))
  const wrong = await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, callback, { ...request, verifier: oauth.generateRandomCodeVerifier() })
  t.match(await tokenError(wrong), { status: 400, error: 'invalid_grant', issued: false })
  const missing = await provider.publicFetch(`${TEST_PUBLIC_URL}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${CONFIDENTIAL_CLIENT.client_id}:${TEST_CLIENT_SECRET}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: (CONFIDENTIAL_CLIENT.redirect_uris as string[])[0]! })
  })
  t.match(await tokenError(missing), { status: 400, issued: false })
})

t.test('a wrong client secret is refused with invalid_client, and nothing is issued', async (t) => {
  const { provider, as, browser } = await signedIn(t)
  const request = await authorizationUrl(as, CONFIDENTIAL_CLIENT)
  const callback = atClient(await browser.visit(request.url))
  const answer = await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, callback, request, `${TEST_CLIENT_SECRET}x`)
  t.match(await tokenError(answer), { status: 401, error: 'invalid_client', issued: false })
  const storedHash = createHash('sha256').update(TEST_CLIENT_SECRET).digest('base64url')
  const hashAsSecret = await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, callback, request, storedHash)
  t.match(await tokenError(hashAsSecret), { status: 401, error: 'invalid_client', issued: false }, 'the stored hash is no secret')
})

t.test('a public client without PKCE is sent back with invalid_request, and no code', async (t) => {
  const { as, browser } = await signedIn(t)
  const request = await authorizationUrl(as, PUBLIC_CLIENT)
  request.url.searchParams.delete('code_challenge')
  request.url.searchParams.delete('code_challenge_method')
  const callback = atClient(await browser.visit(request.url))
  t.equal(callback.searchParams.get('error'), 'invalid_request')
  t.notOk(callback.searchParams.has('code'))
  const plain = await authorizationUrl(as, PUBLIC_CLIENT, { code_challenge_method: 'plain' })
  t.equal(atClient(await browser.visit(plain.url)).searchParams.get('error'), 'invalid_request', 'plain is no PKCE here')
})

t.test('a provider session whose page session was signed out is not used again: the visitor goes to the page', async (t) => {
  const { provider, as, browser } = await signedIn(t)
  t.equal((await browser.visit((await authorizationUrl(as, CONFIDENTIAL_CLIENT)).url)).kind, 'client', 'straight through while signed in')
  // The page's sign-out: its refresh family revoked (token/revoke); the auth cookie still verifies for its 15 minutes.
  const signOut = await browser.request('/accounts/token/revoke', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh: browser.cookies.get('refresh')!.value })
  })
  t.equal(signOut.status, 200)
  const landing = await browser.visit((await authorizationUrl(as, CONFIDENTIAL_CLIENT)).url)
  t.equal(landing.kind, 'page')
  const other = new ProviderBrowser(provider.publicFetch)
  for (const [name, cookie] of browser.cookies) if (name.startsWith('oidc_')) other.cookies.set(name, cookie)
  t.equal((await other.visit((await authorizationUrl(as, CONFIDENTIAL_CLIENT)).url)).kind, 'page', 'a stolen provider cookie alone signs no one in')
})
