import * as oauth from 'oauth4webapi'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodeJwt } from 'jose'
import t, { type Test } from 'tap'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import {
  atClient, authorizationUrl, CONFIDENTIAL_CLIENT, decideConsent, discover, exchangeCode, ProviderBrowser, PUBLIC_CLIENT, startProvider,
  TEST_CLIENT_SECRET, type TestClient
} from '../../../fixtures/oidc/provider-browser.js'

/** A relying party's back-channel logout endpoint on port 0: the logout tokens it received. */
async function backChannelReceiver (t: Test): Promise<{ url: string, received: string[] }> {
  const received: string[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => { body += chunk.toString() })
    request.on('end', () => {
      received.push(new URLSearchParams(body).get('logout_token') ?? '')
      response.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => { resolve() })))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel-logout`, received }
}

const publicClient = { client_id: PUBLIC_CLIENT.client_id }

t.test('a first-party client asking offline_access gets a refresh token that rotates; a reuse past the grace revokes the grant', async (t) => {
  const provider = await startProvider(t, [PUBLIC_CLIENT], { env: { REFRESH_REUSE_GRACE_SECONDS: '0' } })
  await registerAccount(provider.reference.base, 'rae@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('rae@example.test', GOOD_PASSWORD)
  const request = await authorizationUrl(as, PUBLIC_CLIENT, { scope: 'openid email offline_access' })
  const callback = atClient(await browser.visit(request.url))
  const first = await oauth.processAuthorizationCodeResponse(as, publicClient, await exchangeCode(provider, as, PUBLIC_CLIENT, callback, request),
    { expectedNonce: request.nonce, requireIdToken: true })
  t.type(first.refresh_token, 'string', 'no consent page, and a refresh token all the same')
  const refresh = async (token: string): Promise<Response> =>
    await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), token, { [oauth.customFetch]: provider.publicFetch })
  const second = await oauth.processRefreshTokenResponse(as, publicClient, await refresh(first.refresh_token!))
  t.not(second.refresh_token, first.refresh_token, 'rotated')
  t.match(decodeJwt(second.id_token!), { sub: decodeJwt(first.id_token!).sub, acr: 'urn:threshold:acr:1fa', amr: ['pwd'] })
  const reused = await refresh(first.refresh_token!)
  t.equal(reused.status, 400)
  t.match(await reused.json(), { error: 'invalid_grant' })
  t.equal((await refresh(second.refresh_token!)).status, 400, 'the reuse revoked the grant: its newest token too')
})

t.test('a client that is not first-party gets offline_access only with prompt=consent, listed on the consent page', async (t) => {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT])
  await registerAccount(provider.reference.base, 'off@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('off@example.test', GOOD_PASSWORD)
  const request = await authorizationUrl(as, CONFIDENTIAL_CLIENT, { scope: 'openid offline_access', prompt: 'consent' })
  const consent = await browser.visit(request.url)
  if (consent.kind !== 'answer') throw new Error(JSON.stringify(consent))
  t.match(JSON.parse(consent.body), { page: 'consent', scopes: ['openid', 'offline_access'] })
  const callback = atClient(await decideConsent(browser, consent, 'allow'))
  const client = { client_id: CONFIDENTIAL_CLIENT.client_id }
  const result = await oauth.processAuthorizationCodeResponse(as, client, await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, callback, request),
    { expectedNonce: request.nonce, requireIdToken: true })
  t.type(result.refresh_token, 'string')
  const without = await authorizationUrl(as, CONFIDENTIAL_CLIENT, { scope: 'openid offline_access' })
  const plain = await oauth.processAuthorizationCodeResponse(as, client,
    await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, atClient(await browser.visit(without.url)), without), { expectedNonce: without.nonce })
  t.equal(plain.refresh_token, undefined, 'without prompt=consent, no refresh token')
})

t.test('RP-initiated logout: a confirmation page, the back-channel logout delivered, the page session ended too', async (t) => {
  const receiver = await backChannelReceiver(t)
  const client: TestClient = { ...CONFIDENTIAL_CLIENT, first_party: true, backchannel_logout_uri: receiver.url }
  const provider = await startProvider(t, [client])
  await registerAccount(provider.reference.base, 'lou@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('lou@example.test', GOOD_PASSWORD)
  const request = await authorizationUrl(as, client)
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: client.client_id },
    await exchangeCode(provider, as, client, atClient(await browser.visit(request.url)), request, TEST_CLIENT_SECRET), { expectedNonce: request.nonce, requireIdToken: true })
  const sid = decodeJwt(result.id_token!).sid

  const endSession = new URL(as.end_session_endpoint!)
  endSession.search = new URLSearchParams({
    id_token_hint: result.id_token!, post_logout_redirect_uri: 'https://product.example.test/signed-out', state: 'after-logout'
  }).toString()
  const confirmation = await browser.visit(endSession)
  if (confirmation.kind !== 'answer') throw new Error(JSON.stringify(confirmation))
  t.match(confirmation.type, /^application\/vnd\.threshold\.provider-page\+json/)
  const page = JSON.parse(confirmation.body) as { page: string, action: string, xsrf: string }
  t.match(page, { page: 'logout', client: { name: 'Partner App' }, action: '/oidc/session/end/confirm', xsrf: /^\S+$/ })
  const forged = await browser.visit(page.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'xsrf=forged&logout=yes' })
  t.match(forged, { kind: 'answer', status: 400 }, 'a confirmation without the page\'s xsrf signs nobody out')

  const done = await browser.visit(page.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ xsrf: page.xsrf, logout: 'yes' }).toString()
  })
  const back = atClient(done)
  t.equal(back.href, 'https://product.example.test/signed-out?state=after-logout')
  t.equal(receiver.received.length, 1, 'one logout token delivered')
  t.match(decodeJwt(receiver.received[0]!), { iss: TEST_PUBLIC_URL, aud: client.client_id, sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } })
  t.equal((await browser.visit((await authorizationUrl(as, client)).url)).kind, 'page', 'the page session ended with the provider\'s')
})

t.test('a page sign-out ends the provider session at its next use, and the client is told by back-channel', async (t) => {
  const receiver = await backChannelReceiver(t)
  const client: TestClient = { ...CONFIDENTIAL_CLIENT, first_party: true, backchannel_logout_uri: receiver.url }
  const provider = await startProvider(t, [client])
  await registerAccount(provider.reference.base, 'pat@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('pat@example.test', GOOD_PASSWORD)
  const request = await authorizationUrl(as, client)
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: client.client_id },
    await exchangeCode(provider, as, client, atClient(await browser.visit(request.url)), request, TEST_CLIENT_SECRET), { expectedNonce: request.nonce, requireIdToken: true })
  await provider.reference.services.tokens.revoke(browser.cookies.get('refresh')!.value)
  t.equal((await browser.visit((await authorizationUrl(as, client)).url)).kind, 'page')
  t.equal(receiver.received.length, 1)
  t.match(decodeJwt(receiver.received[0]!), { aud: client.client_id, sid: decodeJwt(result.id_token!).sid })
  t.equal((await browser.visit((await authorizationUrl(as, client)).url)).kind, 'page')
  t.equal(receiver.received.length, 1, 'told once')
})

t.test('a logout without a return address ends on the signed-out page', async (t) => {
  const provider = await startProvider(t, [PUBLIC_CLIENT])
  const browser = new ProviderBrowser(provider.publicFetch)
  const landing = await browser.visit(`${TEST_PUBLIC_URL}/oidc/session/end?client_id=${PUBLIC_CLIENT.client_id}`)
  // Nobody signed in: oidc-provider confirms by itself (a form that posts at once), then the signed-out page.
  t.equal(landing.kind, 'answer')
  const success = await browser.visit(`${TEST_PUBLIC_URL}/oidc/session/end/success?client_id=${PUBLIC_CLIENT.client_id}`)
  if (success.kind !== 'answer') throw new Error(JSON.stringify(success))
  t.match(JSON.parse(success.body), { page: 'signed-out', client: { name: 'Command line' } })
})
