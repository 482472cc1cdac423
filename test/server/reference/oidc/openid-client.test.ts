import * as client from 'openid-client'
import t from 'tap'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { atClient, CONFIDENTIAL_CLIENT, decideConsent, ProviderBrowser, startProvider, TEST_CLIENT_SECRET } from '../../../fixtures/oidc/provider-browser.js'

t.test('openid-client, a certified relying party, signs in, reads userinfo, refreshes and builds the logout URL', async (t) => {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT])
  await registerAccount(provider.reference.base, 'oc@example.test')
  const publicFetch: client.CustomFetch = async (url, options) => await provider.publicFetch(url, options as RequestInit)
  const config = await client.discovery(new URL(TEST_PUBLIC_URL), CONFIDENTIAL_CLIENT.client_id, undefined, client.ClientSecretBasic(TEST_CLIENT_SECRET), {
    [client.customFetch]: publicFetch
  })
  config[client.customFetch] = publicFetch
  const verifier = client.randomPKCECodeVerifier()
  const state = client.randomState()
  const nonce = client.randomNonce()
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: (CONFIDENTIAL_CLIENT.redirect_uris as string[])[0]!,
    scope: 'openid email offline_access',
    prompt: 'consent',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce
  })
  const browser = new ProviderBrowser(provider.publicFetch)
  const toPage = await browser.visit(url)
  if (toPage.kind !== 'page') throw new Error(JSON.stringify(toPage))
  await browser.signIn('oc@example.test', GOOD_PASSWORD)
  const callback = atClient(await decideConsent(browser, await browser.visit(toPage.url.searchParams.get('redirect')!), 'allow'))
  const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce })
  const claims = tokens.claims()!
  t.match(claims, { iss: TEST_PUBLIC_URL, acr: 'urn:threshold:acr:1fa', amr: ['pwd'], auth_time: Number, sid: String })
  t.match(await client.fetchUserInfo(config, tokens.access_token, claims.sub), { email: 'oc@example.test' })
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!)
  t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated')
  t.equal(refreshed.claims()?.sub, claims.sub)
  const logout = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://product.example.test/signed-out' })
  t.equal(logout.origin + logout.pathname, `${TEST_PUBLIC_URL}/oidc/session/end`)
})
