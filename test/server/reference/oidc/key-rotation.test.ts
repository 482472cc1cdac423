import * as oauth from 'oauth4webapi'
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, jwtVerify } from 'jose'
import t from 'tap'
import { KEY_PUBLISH_AHEAD_MS, rotateSigningKey } from '../../../../server/reference/keys/signing-key-rotation.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import {
  atClient, authorizationUrl, discover, exchangeCode, ProviderBrowser, PUBLIC_CLIENT, startProvider, type ProviderUnderTest
} from '../../../fixtures/oidc/provider-browser.js'

/** An ID token for a fresh authorization of the signed-in browser. */
async function idToken (provider: ProviderUnderTest, as: oauth.AuthorizationServer, browser: ProviderBrowser): Promise<string> {
  const request = await authorizationUrl(as, PUBLIC_CLIENT)
  const response = await exchangeCode(provider, as, PUBLIC_CLIENT, atClient(await browser.visit(request.url)), request)
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: PUBLIC_CLIENT.client_id }, response, { expectedNonce: request.nonce, requireIdToken: true })
  return result.id_token!
}

async function keyIds (provider: ProviderUnderTest, path: string): Promise<string[]> {
  const set = await (await provider.publicFetch(`${TEST_PUBLIC_URL}${path}`)).json() as { keys: Array<{ kid: string }> }
  return set.keys.map((key) => key.kid).sort()
}

t.test('after a signing key rotation the provider signs with the page\'s new key and publishes the page\'s key set', async (t) => {
  const provider = await startProvider(t, [PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, 'kim@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('kim@example.test', GOOD_PASSWORD)
  const before = await idToken(provider, as, browser)
  const { services } = provider.reference

  // Dated back by the publishing delay, so that the new key signs now, while the old one is still published.
  const rotation = await rotateSigningKey(provider.reference.dataDir, Date.now() - KEY_PUBLISH_AHEAD_MS - 1000)
  await services.signingKeys.reload()
  t.equal(decodeProtectedHeader(before).kid, rotation.oldKid)
  const after = await idToken(provider, as, browser)
  t.equal(decodeProtectedHeader(after).kid, rotation.newKid, 'the new key signs the provider\'s ID tokens as it signs the page\'s tokens')
  t.same(await keyIds(provider, '/oidc/jwks'), [rotation.oldKid, rotation.newKid].sort())
  t.same(await keyIds(provider, '/oidc/jwks'), await keyIds(provider, '/accounts/.well-known/jwks.json'), 'the same set as the page\'s')
  const jwks = createRemoteJWKSet(new URL(as.jwks_uri!), { [customFetch]: provider.publicFetch })
  for (const token of [before, after]) await jwtVerify(token, jwks, { issuer: TEST_PUBLIC_URL, audience: PUBLIC_CLIENT.client_id })
  t.pass('both tokens verify against the published set')
  t.equal((await browser.visit((await authorizationUrl(as, PUBLIC_CLIENT)).url)).kind, 'client', 'the provider\'s session survives its rebuild')
})
