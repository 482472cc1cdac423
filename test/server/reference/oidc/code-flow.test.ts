import * as oauth from 'oauth4webapi'
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, jwtVerify } from 'jose'
import t from 'tap'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { GOOD_PASSWORD, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { OIDC_COOKIE_NAMES } from '../../../../server/reference/oidc/provider-configuration.js'
import {
  atClient, authorizationUrl, CONFIDENTIAL_CLIENT, decideConsent, discover, exchangeCode, ProviderBrowser, PUBLIC_CLIENT, startProvider, TEST_CLIENT_SECRET
} from '../../../fixtures/oidc/provider-browser.js'

t.test('discovery states the page as issuer, the code flow alone, S256 alone, and the page\'s own key set', async (t) => {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT])
  const as = await discover(provider.publicFetch)
  t.equal(as.issuer, TEST_PUBLIC_URL)
  t.equal(as.authorization_endpoint, `${TEST_PUBLIC_URL}/oidc/auth`)
  t.equal(as.token_endpoint, `${TEST_PUBLIC_URL}/oidc/token`)
  t.equal(as.userinfo_endpoint, `${TEST_PUBLIC_URL}/oidc/me`)
  t.equal(as.end_session_endpoint, `${TEST_PUBLIC_URL}/oidc/session/end`)
  t.same(as.response_types_supported, ['code'])
  t.same(as.code_challenge_methods_supported, ['S256'])
  t.same(as.id_token_signing_alg_values_supported, ['EdDSA'])
  t.same(as.acr_values_supported, ['urn:threshold:acr:1fa', 'urn:threshold:acr:mfa', 'urn:threshold:acr:phr'])
  t.equal(as.backchannel_logout_supported, true)
  const providerKeys = await (await provider.publicFetch(as.jwks_uri!)).json() as { keys: Array<Record<string, unknown>> }
  const pageKeys = await (await provider.publicFetch(`${TEST_PUBLIC_URL}/accounts/.well-known/jwks.json`)).json() as { keys: Array<Record<string, unknown>> }
  t.same(providerKeys.keys.map((key) => [key.kid, key.x]), pageKeys.keys.map((key) => [key.kid, key.x]), 'the same keys as the page\'s tokens')
  t.notOk(providerKeys.keys.some((key) => 'd' in key), 'no private part is published')
})

t.test('a request from a forged host still names PUBLIC_URL as the issuer', async (t) => {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT])
  const response = await provider.publicFetch(`${TEST_PUBLIC_URL}/.well-known/openid-configuration`, {
    headers: { 'x-forwarded-host': 'evil.example.test', 'x-forwarded-proto': 'http', forwarded: 'host=evil.example.test' }
  })
  const body = await response.json() as Record<string, string>
  t.equal(body.issuer, TEST_PUBLIC_URL)
  t.equal(body.token_endpoint, `${TEST_PUBLIC_URL}/oidc/token`)
})

t.test('with no client configured, the provider\'s paths answer 404', async (t) => {
  const provider = await startProvider(t, [])
  for (const path of ['/.well-known/openid-configuration', '/oidc/auth?client_id=x', '/oidc/jwks', '/oidc/interaction/abc']) {
    const response = await provider.publicFetch(`${TEST_PUBLIC_URL}${path}`)
    t.equal(response.status, 404, path)
  }
})

t.test('a confidential client signs a visitor in through the page: consent, tokens, an ID token of the page\'s keys, userinfo', async (t) => {
  const provider = await startProvider(t, [CONFIDENTIAL_CLIENT, PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, 'ada@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  const request = await authorizationUrl(as, CONFIDENTIAL_CLIENT, { login_hint: 'ada@example.test', ui_locales: 'fr' })
  const toPage = await browser.visit(request.url)
  if (toPage.kind !== 'page') throw new Error(JSON.stringify(toPage))
  t.match(toPage.url.searchParams.get('redirect'), /^\/oidc\/interaction\/[\w-]+$/)
  t.equal(toPage.url.searchParams.get('login_hint'), 'ada@example.test')
  t.equal(toPage.url.searchParams.get('ui_locales'), 'fr')
  t.match(await browser.signIn('ada@example.test', GOOD_PASSWORD), { auth: String, refresh: String })

  const consent = await browser.visit(toPage.url.searchParams.get('redirect')!)
  if (consent.kind !== 'answer') throw new Error(JSON.stringify(consent))
  t.match(consent.type, /^application\/vnd\.threshold\.provider-page\+json/)
  t.match(JSON.parse(consent.body), {
    page: 'consent', uiLocales: 'fr', client: { name: 'Partner App', uri: 'https://product.example.test' },
    account: { email: 'ada@example.test' }, scopes: ['openid', 'email', 'profile'], action: /^\/oidc\/interaction\/[\w-]+\/consent$/
  })
  const callback = atClient(await decideConsent(browser, consent, 'allow'))
  t.ok(browser.cookies.has(OIDC_COOKIE_NAMES.session), 'the provider\'s session cookie, host-only, by its name')
  t.notOk([...browser.cookies.keys()].some((name) => name.startsWith('_')), 'no cookie of oidc-provider\'s own names')
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: CONFIDENTIAL_CLIENT.client_id },
    await exchangeCode(provider, as, CONFIDENTIAL_CLIENT, callback, request), { expectedNonce: request.nonce, requireIdToken: true })

  const jwks = createRemoteJWKSet(new URL(as.jwks_uri!), { [customFetch]: provider.publicFetch })
  const { payload } = await jwtVerify(result.id_token!, jwks, { issuer: TEST_PUBLIC_URL, audience: CONFIDENTIAL_CLIENT.client_id, algorithms: ['EdDSA'] })
  const account = await provider.reference.services.store.findAccountByEmail('ada@example.test')
  t.match(payload, { sub: account!.id, acr: 'urn:threshold:acr:1fa', amr: ['pwd'], auth_time: Number, sid: String, nonce: request.nonce })
  t.equal(decodeProtectedHeader(result.id_token!).kid, provider.reference.services.signingKeys.signer(Date.now()).kid, 'signed by the key that signs the page\'s tokens')

  const userinfo = await oauth.userInfoRequest(as, { client_id: CONFIDENTIAL_CLIENT.client_id }, result.access_token, { [oauth.customFetch]: provider.publicFetch })
  t.match(await oauth.processUserInfoResponse(as, { client_id: CONFIDENTIAL_CLIENT.client_id }, account!.id, userinfo), {
    sub: account!.id, email: 'ada@example.test', email_verified: false
  })

  t.test('introspection tells the token active; once revoked, userinfo refuses it', async (t) => {
    const client = { client_id: CONFIDENTIAL_CLIENT.client_id }
    const auth = oauth.ClientSecretBasic(TEST_CLIENT_SECRET)
    const options = { [oauth.customFetch]: provider.publicFetch }
    const active = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, result.access_token, options))
    t.match(active, { active: true, sub: account!.id, client_id: client.client_id })
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, result.access_token, options))
    const after = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, result.access_token, options))
    t.equal(after.active, false)
    t.equal((await oauth.userInfoRequest(as, client, result.access_token, options)).status, 401)
  })

  t.test('a second request passes straight through: a live page session, and consent already given', async (t) => {
    const again = await authorizationUrl(as, CONFIDENTIAL_CLIENT)
    const landing = await browser.visit(again.url)
    t.equal(landing.kind, 'client')
    t.ok(atClient(landing).searchParams.has('code'))
  })
})

t.test('a visitor signed in on the page before the request passes straight through, without a provider session', async (t) => {
  const provider = await startProvider(t, [PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, 'bo@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('bo@example.test', GOOD_PASSWORD)
  const request = await authorizationUrl(as, PUBLIC_CLIENT)
  const callback = atClient(await browser.visit(request.url))
  const response = await exchangeCode(provider, as, PUBLIC_CLIENT, callback, request)
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: PUBLIC_CLIENT.client_id }, response, { expectedNonce: request.nonce, requireIdToken: true })
  t.ok(result.access_token, 'a first-party public client: no consent page')
})

t.test('on an https issuer an authorization request by POST is served as by GET, its session cookie SameSite=None', async (t) => {
  const provider = await startProvider(t, [PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, 'po@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  const request = await authorizationUrl(as, PUBLIC_CLIENT)
  const url = new URL(request.url)
  const posted = await browser.request(`${url.origin}${url.pathname}`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: url.searchParams.toString()
  })
  t.equal(posted.status, 303)
  const interaction = new URL(posted.headers.get('location')!, TEST_PUBLIC_URL)
  t.match(interaction.pathname, /^\/oidc\/interaction\//)
  t.ok(posted.headers.getSetCookie().some((line) => /^oidc_interaction=/.test(line) && /samesite=none/i.test(line) && /secure/i.test(line)),
    'the interaction cookie is SameSite=None; Secure')
  await browser.signIn('po@example.test', GOOD_PASSWORD)
  const callback = atClient(await browser.visit(interaction))
  const response = await exchangeCode(provider, as, PUBLIC_CLIENT, callback, request)
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: PUBLIC_CLIENT.client_id }, response, { expectedNonce: request.nonce, requireIdToken: true })
  t.ok(result.access_token, 'tokens, as after a GET')
})

t.test('an expired auth cookie with a live refresh cookie passes straight through; a revoked one goes to the page', async (t) => {
  const provider = await startProvider(t, [PUBLIC_CLIENT])
  await registerAccount(provider.reference.base, 'cy@example.test')
  const as = await discover(provider.publicFetch)
  const browser = new ProviderBrowser(provider.publicFetch)
  await browser.signIn('cy@example.test', GOOD_PASSWORD)
  browser.cookies.delete('auth')
  t.equal((await browser.visit((await authorizationUrl(as, PUBLIC_CLIENT)).url)).kind, 'client')
  const fresh = new ProviderBrowser(provider.publicFetch)
  await fresh.signIn('cy@example.test', GOOD_PASSWORD)
  await provider.reference.services.tokens.revoke(fresh.cookies.get('refresh')!.value)
  fresh.cookies.delete('auth')
  t.equal((await fresh.visit((await authorizationUrl(as, PUBLIC_CLIENT)).url)).kind, 'page')
})
