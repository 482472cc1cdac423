import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose'
import t from 'tap'
import { DEFAULT_SESSION_SETTINGS } from '../../../../server/reference/config.js'
import { AUTH_TOKEN_TTL_SECONDS, hashToken } from '../../../../server/reference/sessions/tokens.js'
import { Clock } from '../../../fixtures/account-changes/account-changes.js'
import { GOOD_PASSWORD, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const ENDED = { error: 'Your session has ended. Please log in again.' }
const IDLE_TIMEOUT_MS = DEFAULT_SESSION_SETTINGS.idleTimeoutDays * 24 * 60 * 60 * 1000
/** Past the window in which a used refresh token still gets a sibling (tokens-lifetime.test.ts). */
const PAST_GRACE_SECONDS = DEFAULT_SESSION_SETTINGS.reuseGraceSeconds + 1

async function keySetThroughEdge (base: string): Promise<{ keySet: JSONWebKeySet, response: Response }> {
  const response = await fetch(`${base}/accounts/.well-known/jwks.json`)
  return { keySet: await response.clone().json() as JSONWebKeySet, response }
}

t.test('the auth token verifies against the key set fetched through the edge, with its issuer, audience and claims', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'Claims@Example.com')
  const account = await services.store.findAccountByEmail('claims@example.com')
  await services.store.addMembership(account!.id, 'acme')
  const before = Math.floor(Date.now() / 1000)
  const { auth } = await loginTokens(base, 'claims@example.com', GOOD_PASSWORD, {
    insecure_allowed_orgs: ['acme'], resource_type: 'database', cluster_name: 'eu-1'
  })

  const { keySet, response } = await keySetThroughEdge(base)
  t.equal(response.status, 200)
  t.equal(response.headers.get('cache-control'), 'public, max-age=300', 'other services may cache the key set briefly')
  t.equal(keySet.keys.length, 1)
  const [key] = keySet.keys
  t.same(Object.keys(key!).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x'], 'only the public half is published')
  t.same([key!.kty, key!.crv, key!.alg, key!.use], ['OKP', 'Ed25519', 'EdDSA', 'sig'])

  const { payload, protectedHeader } = await jwtVerify(auth, createLocalJWKSet(keySet), {
    issuer: `${TEST_PUBLIC_URL}/accounts`,
    audience: TEST_PUBLIC_URL,
    algorithms: ['EdDSA'],
    typ: 'at+jwt'
  })
  t.equal(protectedHeader.kid, key!.kid, 'the header names the key')
  t.equal(payload.sub, account!.id)
  t.equal(payload.email, 'Claims@Example.com')
  t.same(payload.orgs, ['acme'])
  t.same(payload.amr, ['pwd'])
  t.equal(payload.email_verified, false, 'a password registration does not show that the address is the holder\'s')
  t.equal(payload.resource_type, 'database')
  t.equal(payload.cluster_name, 'eu-1')
  t.match(payload.jti, /^[0-9a-f-]{36}$/)
  t.ok(payload.iat! >= before && payload.iat! <= Math.ceil(Date.now() / 1000))
  t.equal(payload.exp! - payload.iat!, AUTH_TOKEN_TTL_SECONDS, 'the auth token lives 15 minutes')
})

t.test('an auth token altered after signing does not verify', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'tamper@example.com')
  const { auth } = await loginTokens(base, 'tamper@example.com')
  const [header, payload, signature] = auth.split('.')
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, orgs: ['admin'] })).toString('base64url')}.${signature}`
  const { keySet } = await keySetThroughEdge(base)
  await t.rejects(jwtVerify(forged, createLocalJWKSet(keySet)), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' })
  t.equal(decodeProtectedHeader(auth).alg, 'EdDSA')
})

t.test('a refresh token is stored only as its hash, for 14 days', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'hashed@example.com')
  const started = Date.now()
  const { refresh } = await loginTokens(base, 'hashed@example.com')
  const record = await services.store.findRefreshToken(hashToken(refresh))
  t.ok(record, 'found by its hash')
  t.equal(await services.store.findRefreshToken(refresh), null, 'not by the token itself')
  t.ok(record!.expiresAt >= started + IDLE_TIMEOUT_MS && record!.expiresAt <= Date.now() + IDLE_TIMEOUT_MS)
})

t.test('refreshing answers a new pair that works, and the old refresh token is refused once its grace has passed', async (t) => {
  const clock = new Clock()
  const { base } = await startReference(t, { now: clock.now })
  await registerAccount(base, 'rotate@example.com')
  const first = await loginTokens(base, 'rotate@example.com', GOOD_PASSWORD, { resource_type: 'database' })

  const second = await postJson(base, '/accounts/token/refresh', { refresh: first.refresh })
  t.equal(second.status, 200)
  t.same(Object.keys(second.body).sort(), ['auth', 'refresh'])
  t.not(second.body.refresh, first.refresh)
  t.equal(second.headers.get('cache-control'), 'no-store')
  const { keySet } = await keySetThroughEdge(base)
  const { payload } = await jwtVerify(second.body.auth as string, createLocalJWKSet(keySet), { issuer: `${TEST_PUBLIC_URL}/accounts`, audience: TEST_PUBLIC_URL })
  t.equal(payload.resource_type, 'database', 'the login\'s context is carried into the new token')
  t.same(payload.amr, ['pwd'])

  const third = await postJson(base, '/accounts/token/refresh', { refresh: second.body.refresh })
  t.equal(third.status, 200, 'the new refresh token works')
  clock.passSeconds(PAST_GRACE_SECONDS)
  const reused = await postJson(base, '/accounts/token/refresh', { refresh: first.refresh })
  t.same([reused.status, reused.body], [401, ENDED], 'the first refresh token is refused')
})

t.test('reusing a spent refresh token after its grace revokes its whole family, the newest token included; other logins are untouched', async (t) => {
  const clock = new Clock()
  const { base } = await startReference(t, { now: clock.now })
  await registerAccount(base, 'family@example.com')
  const stolen = await loginTokens(base, 'family@example.com')
  const otherDevice = await loginTokens(base, 'family@example.com')
  const owner = (await postJson(base, '/accounts/token/refresh', { refresh: stolen.refresh })).body as { refresh: string }

  clock.passSeconds(PAST_GRACE_SECONDS)
  const thief = await postJson(base, '/accounts/token/refresh', { refresh: stolen.refresh })
  t.same([thief.status, thief.body], [401, ENDED], 'the replay is refused')
  const ownerNext = await postJson(base, '/accounts/token/refresh', { refresh: owner.refresh })
  t.same([ownerNext.status, ownerNext.body], [401, ENDED], 'the newest token of the family stopped working too')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: otherDevice.refresh })).status, 200, 'another login\'s family still works')
})

t.test('the refresh token may come from the refresh cookie when the body has none', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'cookie@example.com')
  const { refresh } = await loginTokens(base, 'cookie@example.com')
  const answer = await postJson(base, '/accounts/token/refresh', {}, { cookie: `auth=x; refresh=${encodeURIComponent(refresh)}` })
  t.equal(answer.status, 200)
})

t.test('revoking logs out: the family is refused afterwards, and revoking an unknown token answers the same', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'revoke@example.com')
  const first = await loginTokens(base, 'revoke@example.com')
  const rotated = (await postJson(base, '/accounts/token/refresh', { refresh: first.refresh })).body as { refresh: string }

  const revoked = await postJson(base, '/accounts/token/revoke', { refresh: first.refresh })
  t.same([revoked.status, revoked.body], [200, { success: 'You have been logged out.' }])
  t.same((await postJson(base, '/accounts/token/refresh', { refresh: rotated.refresh })).body, ENDED, 'the family\'s newest token is revoked')
  const unknown = await postJson(base, '/accounts/token/revoke', { refresh: 'not-a-token-we-issued' })
  t.same([unknown.status, unknown.body], [200, { success: 'You have been logged out.' }], 'nothing tells which tokens exist')
})

t.test('a refresh or revoke without a usable token answers 400', async (t) => {
  const { base } = await startReference(t)
  for (const path of ['/accounts/token/refresh', '/accounts/token/revoke']) {
    for (const body of [{}, { refresh: 42 }, { refresh: 'x'.repeat(201) }]) {
      const answer = await postJson(base, path, body)
      t.same([answer.status, answer.body], [400, { error: 'A refresh token is required.' }], `${path} ${JSON.stringify(body).slice(0, 40)}`)
    }
  }
  const unknown = await postJson(base, '/accounts/token/refresh', { refresh: 'never-issued' })
  t.same([unknown.status, unknown.body], [401, ENDED])
})

t.test('an expired refresh token is refused', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'stale@example.com')
  const account = await services.store.findAccountByEmail('stale@example.com')
  await services.store.insertRefreshToken({
    tokenHash: hashToken('an-old-refresh-token'),
    accountId: account!.id,
    familyId: 'old-family',
    expiresAt: Date.now() - 1,
    context: JSON.stringify({ organizations: [], resourceType: null, clusterName: null, method: 'pwd' })
  })
  const answer = await postJson(base, '/accounts/token/refresh', { refresh: 'an-old-refresh-token' })
  t.same([answer.status, answer.body], [401, ENDED])
})

t.test('a refresh drops organisations the account has left since the login', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'leaver@example.com')
  const account = await services.store.findAccountByEmail('leaver@example.com')
  await services.store.addMembership(account!.id, 'acme')
  await services.store.addMembership(account!.id, 'globex')
  const { refresh } = await loginTokens(base, 'leaver@example.com', GOOD_PASSWORD, { insecure_allowed_orgs: ['acme', 'globex'] })
  await services.store.removeMembership(account!.id, 'globex')
  const answer = await postJson(base, '/accounts/token/refresh', { refresh })
  const { keySet } = await keySetThroughEdge(base)
  const { payload } = await jwtVerify(answer.body.auth as string, createLocalJWKSet(keySet))
  t.same(payload.orgs, ['acme'])
})

t.test('a refresh is refused once the account has left every organisation its login was allowed for', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'removed@example.com')
  const account = await services.store.findAccountByEmail('removed@example.com')
  await services.store.addMembership(account!.id, 'acme')
  const { refresh } = await loginTokens(base, 'removed@example.com', GOOD_PASSWORD, { insecure_allowed_orgs: ['acme'] })
  await services.store.removeMembership(account!.id, 'acme')
  const answer = await postJson(base, '/accounts/token/refresh', { refresh })
  t.same([answer.status, answer.body], [401, ENDED])
  await services.store.addMembership(account!.id, 'acme')
  t.same((await postJson(base, '/accounts/token/refresh', { refresh })).body, ENDED, 'the family stays revoked when the membership returns')
})
