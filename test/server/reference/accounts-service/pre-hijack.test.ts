import { decodeJwt } from 'jose'
import t from 'tap'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google-identity.js'
import {
  accountsLinkOf,
  GOOD_PASSWORD,
  loginTokens,
  openLink,
  postJson,
  registerAccount,
  startReference,
  TEST_PUBLIC_URL,
  waitForEmail
} from '../../../fixtures/reference.js'

const ATTACKER_PASSWORD = 'the attacker\'s own passphrase'

/**
 * The attack: register the victim's address with a password of one's own
 * before the victim arrives, keep a session, and wait for the victim to sign
 * in with Google. Google sign-ins are tested here with a stand-in key set;
 * SSO sign-ins with a real OpenID provider in sso/sso-completion.test.ts.
 */
t.test('pre-hijack through Google: the owner\'s Google sign-in takes the account; the attacker\'s password and session die', async (t) => {
  const google = await startGoogleStandIn(t)
  const { base, dataDir, services } = await startReference(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  await registerAccount(base, 'bob@gmail.example', ATTACKER_PASSWORD)
  const attackerSession = await loginTokens(base, 'bob@gmail.example', ATTACKER_PASSWORD)
  const account = await services.store.findAccountByEmail('bob@gmail.example')

  const bobsGoogle = async () => ({ authorization: `Bearer ${await google.credential({ email: 'bob@gmail.example', sub: 'bob-google' })}` })
  const registered = await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, await bobsGoogle())
  t.same([registered.status, registered.body], [200, { success: 'Your account is now tied to your Google account. You can now log in with Google.' }])
  const login = await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, await bobsGoogle())
  t.equal(login.status, 200, 'the owner signs in with Google')
  const claims = decodeJwt(String(login.body.auth))
  t.equal(claims.sub, account?.id, 'into the account that was registered with the address')
  t.equal(claims.email_verified, true)

  t.same((await postJson(base, '/accounts/v2/login', { email: 'bob@gmail.example', password: ATTACKER_PASSWORD })).body,
    { error: 'Invalid email or password.' }, 'the attacker\'s password fails')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: attackerSession.refresh })).status, 401, 'the attacker\'s session has ended')
  const told = await waitForEmail(dataDir, 1, 'claimed')
  t.match(told.raw, /^To: bob@gmail\.example$/m)
  t.match(told.raw, /^Subject: Your Threshold account is now signed in with Google$/m)
  t.match(told.decoded, /that password has been removed and every other session of the account has ended/)
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail')
  t.equal((await openLink(link.replace(TEST_PUBLIC_URL, base))).location, `${TEST_PUBLIC_URL}/?view=login&notice=verify-link-invalid&ui_locales=en`,
    'the verification link sent to the address before is void')
})

t.test('a Google login (not only a registration) claims an unverified account of its address', async (t) => {
  const google = await startGoogleStandIn(t)
  const { base } = await startReference(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  await registerAccount(base, 'cat@gmail.example', ATTACKER_PASSWORD)
  const credential = await google.credential({ email: 'cat@gmail.example', sub: 'cat-google' })
  const login = await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, { authorization: `Bearer ${credential}` })
  t.equal(login.status, 200)
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'cat@gmail.example', password: ATTACKER_PASSWORD })).status, 401)
})

t.test('an account whose address was verified is never claimed by Google: its password keeps working', async (t) => {
  const google = await startGoogleStandIn(t)
  const { base, dataDir } = await startReference(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  await registerAccount(base, 'dan@gmail.example')
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail')
  await openLink(link.replace(TEST_PUBLIC_URL, base))
  const dansGoogle = async () => ({ authorization: `Bearer ${await google.credential({ email: 'dan@gmail.example', sub: 'someone-else' })}` })
  t.same((await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, await dansGoogle())).body,
    { error: 'An account with this email already exists. Log in with your password.' })
  t.equal((await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, await dansGoogle())).status, 404)
  t.equal((await loginTokens(base, 'dan@gmail.example', GOOD_PASSWORD)).auth.length > 0, true, 'the password still signs in')
})

t.test('logins racing the claim leave the attacker no session, however they interleave', async (t) => {
  // The attack: keep signing in with the password while the owner's Google sign-in claims the account,
  // hoping a login that checked the password before the claim issues its token after it.
  const google = await startGoogleStandIn(t)
  const { base } = await startReference(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  await registerAccount(base, 'eve@gmail.example', ATTACKER_PASSWORD)
  const credential = await google.credential({ email: 'eve@gmail.example', sub: 'eve-google' })
  const attempts = Array.from({ length: 20 }, (_, index) => new Promise((resolve) => setTimeout(resolve, index * 3))
    .then(() => postJson(base, '/accounts/v2/login', { email: 'eve@gmail.example', password: ATTACKER_PASSWORD })))
  const claim = new Promise((resolve) => setTimeout(resolve, 20))
    .then(() => postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, { authorization: `Bearer ${credential}` }))
  const [claimed, ...logins] = await Promise.all([claim, ...attempts])
  t.equal(claimed.status, 200, 'the owner claimed the account')
  const sessions = logins.filter((login) => login.status === 200)
  t.comment(`${sessions.length} of 20 racing logins were answered with tokens`)
  for (const session of sessions) {
    t.equal((await postJson(base, '/accounts/token/refresh', { refresh: session.body.refresh })).status, 401, 'no token of the attacker survives')
  }
  // 401, or 429 once the refused racers have locked the address: either way, no way in.
  t.ok([401, 429].includes((await postJson(base, '/accounts/v2/login', { email: 'eve@gmail.example', password: ATTACKER_PASSWORD })).status))
})
