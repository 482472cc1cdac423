import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import t, { type Test } from 'tap'
import { oidcAdapterFactory } from '../../../../server/reference/oidc/oidc-adapter.js'
import { SqliteAccountStore } from '../../../../server/reference/store/sqlite-store.js'
import { startOidcProvider, type OidcProviderFixture } from '../../../fixtures/sso/sso-oidc-provider.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'

const REDIRECT_URI = 'http://127.0.0.1:9/callback'
const GRACE_SECONDS = 30

/** oidc-provider itself, on port 0, keeping everything through the adapter in a SQLite store whose clock the test moves. */
async function providerOnStore (t: Test) {
  const dir = await mkdtemp(join(tmpdir(), 'threshold-oidc-adapter-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const store = new SqliteAccountStore(join(dir, 'accounts.sqlite'))
  t.teardown(() => store.close())
  const clock = { offsetMs: 0 }
  const now = (): number => store.now() + clock.offsetMs
  const provider = await startOidcProvider(t, { redirectUri: REDIRECT_URI, adapter: oidcAdapterFactory(store, { reuseGraceSeconds: GRACE_SECONDS, now }) })
  provider.users.set('ann', { email: 'ann@example.com', email_verified: true })
  return { store, clock, now, provider }
}

/** A relying party no one here wrote (oauth4webapi) doing the code flow with PKCE; the provider's development forms sign Ann in. */
async function codeFlow (provider: OidcProviderFixture) {
  const issuer = new URL(provider.issuer)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }))
  const client: oauth.Client = { client_id: provider.clientId }
  const clientAuth = oauth.ClientSecretBasic(provider.clientSecret)
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const authorization = new URL(as.authorization_endpoint!)
  authorization.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid email',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256'
  }).toString()
  const callback = new URL(await provider.signIn(new TestBrowser(), authorization.href, 'ann'))
  const parameters = oauth.validateAuthResponse(as, client, callback, state)
  const exchange = async (): Promise<Response> => await oauth.authorizationCodeGrantRequest(as, client, clientAuth, parameters, REDIRECT_URI, verifier, { [oauth.allowInsecureRequests]: true })
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange())
  const refresh = async (token: string): Promise<oauth.TokenEndpointResponse> =>
    await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, clientAuth, token, { [oauth.allowInsecureRequests]: true }))
  return { tokens, exchange, refresh }
}

async function refusal (promise: Promise<unknown>): Promise<{ error: string, description: string | undefined }> {
  try {
    await promise
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return { error: error.error, description: error.error_description }
    throw error
  }
  throw new Error('expected the token endpoint to refuse')
}

t.test('oidc-provider keeps its session, grant, code and tokens in the store: a code flow with PKCE works, its code once', async (t) => {
  const { store, now, provider } = await providerOnStore(t)
  const { tokens, exchange } = await codeFlow(provider)
  t.type(tokens.access_token, 'string')
  t.type(tokens.id_token, 'string')
  t.type(tokens.refresh_token, 'string')
  const refreshRow = await store.oidcPayloads.find('RefreshToken', tokens.refresh_token!, now())
  t.equal(refreshRow?.clientId, provider.clientId, 'the refresh token is a row of the store, for its client')
  t.ok(refreshRow?.grantId, 'and of its grant')
  t.ok(await store.oidcPayloads.find('Grant', refreshRow!.grantId!, now()), 'the grant is a row too')
  t.ok(await store.oidcPayloads.find('AccessToken', tokens.access_token, now()), 'and the access token')

  const reused = await refusal(oauth.processAuthorizationCodeResponse({ issuer: provider.issuer, token_endpoint: `${provider.issuer}/token` }, { client_id: provider.clientId }, await exchange()))
  t.equal(reused.error, 'invalid_grant', 'a code exchanged again is refused')
  t.equal(await store.oidcPayloads.find('RefreshToken', tokens.refresh_token!, now()), null, 'and its grant\'s tokens are revoked with it')
})

t.test('a refresh token rotates; presented again within the grace it is exchanged again, after it the grant ends', async (t) => {
  const { clock, provider } = await providerOnStore(t)
  const { tokens, refresh } = await codeFlow(provider)
  const first = tokens.refresh_token!
  const second = await refresh(first)
  t.not(second.refresh_token, first, 'a new refresh token at each use')

  clock.offsetMs = (GRACE_SECONDS - 5) * 1000
  const racing = await refresh(first)
  t.type(racing.access_token, 'string', 'a reuse inside the grace (a lost answer, a racing tab) gets tokens')
  t.not(racing.refresh_token, second.refresh_token)

  clock.offsetMs = (GRACE_SECONDS + 1) * 1000
  const stolen = await refusal(refresh(first))
  t.equal(stolen.error, 'invalid_grant', 'a reuse after the grace is refused')
  for (const sibling of [second.refresh_token!, racing.refresh_token!]) {
    t.equal((await refusal(refresh(sibling))).error, 'invalid_grant', 'and every token of the grant with it')
  }
})

t.test('two exchanges of one refresh token at once both get tokens, as two tabs of a browser would', async (t) => {
  const { provider } = await providerOnStore(t)
  const { tokens, refresh } = await codeFlow(provider)
  const [one, two] = await Promise.all([refresh(tokens.refresh_token!), refresh(tokens.refresh_token!)])
  t.type(one.access_token, 'string')
  t.type(two.access_token, 'string')
  t.not(one.refresh_token, two.refresh_token, 'each its own successor')
  t.type((await refresh(one.refresh_token!)).access_token, 'string', 'and each successor works')
  t.type((await refresh(two.refresh_token!)).access_token, 'string')
})

t.test('without a grace, a consumed refresh token is refused at once and its grant revoked', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'threshold-oidc-adapter-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const store = new SqliteAccountStore(join(dir, 'accounts.sqlite'))
  t.teardown(() => store.close())
  const provider = await startOidcProvider(t, { redirectUri: REDIRECT_URI, adapter: oidcAdapterFactory(store, { reuseGraceSeconds: 0, now: () => store.now() }) })
  provider.users.set('ann', { email: 'ann@example.com' })
  const { tokens, refresh } = await codeFlow(provider)
  const next = await refresh(tokens.refresh_token!)
  t.equal((await refusal(refresh(tokens.refresh_token!))).error, 'invalid_grant')
  t.equal((await refusal(refresh(next.refresh_token!))).error, 'invalid_grant')
})

t.test('what the provider stores expires by the store\'s clock, and the purge deletes it', async (t) => {
  const { store, now, provider } = await providerOnStore(t)
  const { tokens } = await codeFlow(provider)
  const accessRow = await store.oidcPayloads.find('AccessToken', tokens.access_token, now())
  t.ok(accessRow?.expiresAt !== null && accessRow!.expiresAt > now(), 'an access token has an expiry')
  await store.purgeExpired(accessRow!.expiresAt!)
  t.equal(await store.oidcPayloads.find('AccessToken', tokens.access_token, now()), null, 'purged once expired')
  t.ok(await store.oidcPayloads.find('RefreshToken', tokens.refresh_token!, now()), 'a refresh token lives longer')
})
