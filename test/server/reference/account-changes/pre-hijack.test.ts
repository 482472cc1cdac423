import { decodeJwt } from 'jose'
import t from 'tap'
import { addPasskey, Clock, enrolAuthenticator, passkeySignIn, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'
import { GOOD_PASSWORD, logCollector, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { accountsLinkOf, resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { openLink } from '../../../fixtures/http/open-link.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const ATTACKER_PASSWORD = 'the attacker\'s own passphrase'

/**
 * The attack: register the victim's address with a password of one's own
 * before the victim arrives, keep a session, and wait for the victim to sign
 * in with Google. Google sign-ins are tested here with a stand-in key set;
 * SSO sign-ins with a real OpenID provider in test/server/reference/sso/sso-completion.test.ts.
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
  t.match(told.decoded, /that password, and any passkey or authenticator app set up before, have been removed, and every other session of the account has ended/)
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
  const dan = await registerAccount(base, 'dan@gmail.example')
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail')
  t.match((await openLink(link.replace(TEST_PUBLIC_URL, base), { cookie: dan.cookie! })).location, /notice=email-verified/)
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

t.test('pre-hijack with ways in of his own: the squatter\'s passkey and authenticator app go with the Google claim', async (t) => {
  const logs = logCollector()
  const clock = new Clock()
  const google = await startGoogleStandIn(t)
  const reference = await startReference(t, { now: clock.now, logStream: logs.stream, env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  const { base, services } = reference
  // Mallory registers Alice's address before she arrives; his sign-in is his proof for both.
  await registerAccount(base, 'alice@gmail.example')
  const mallory = await signedInOwner(reference, 'alice@gmail.example', { registered: true })
  t.equal((await addPasskey(mallory)).status, 200, 'the squatter adds a passkey')
  await enrolAuthenticator(mallory, clock)
  clock.value += 60_000

  const alicesGoogle = { authorization: `Bearer ${await google.credential({ email: 'alice@gmail.example', sub: 'alice-google' })}` }
  const login = await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, alicesGoogle)
  t.equal(login.status, 200)
  t.type(login.body.auth, 'string', 'Alice is signed in: no code from the squatter\'s app is asked for')
  t.equal(await passkeySignIn(mallory), 401, 'the squatter\'s passkey signs in no more')
  const accountId = (await services.store.findAccountByEmail('alice@gmail.example'))!.id
  t.same(await services.store.listPasskeys(accountId), [])
  t.equal(await services.store.findSecondFactor(accountId), null, 'the app is gone')
  t.equal(await services.store.countUnusedRecoveryCodes(accountId), 0, 'with its recovery codes')
  t.match(logs.lines.findLast((line) => line.audit === 'account.claimed'), { via: 'google', passkeysRemoved: 1, secondFactorRemoved: true })
})

t.test('pre-hijack through "forgot password": the owner\'s reset takes the account, and no passkey set up before it stays, however old', async (t) => {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  const { base, dataDir, services } = reference
  await registerAccount(base, 'dan@example.com')
  const mallory = await signedInOwner(reference, 'dan@example.com', { registered: true })
  t.equal((await addPasskey(mallory)).status, 200)
  clock.passDays(31)

  t.equal((await postJson(base, '/accounts/resetPasswordRequest', { email: 'dan@example.com' })).status, 200)
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  const reset = await postJson(base, '/accounts/resetPassword', { token, password: 'dan chose this one', confirm_password: 'dan chose this one' })
  t.equal(reset.status, 200)
  t.notOk('review_token' in reset.body, 'nothing is left to review')
  t.equal(await passkeySignIn(mallory), 401, 'the squatter\'s passkey signs in no more')
  const account = (await services.store.findAccountByEmail('dan@example.com'))!
  t.not(account.emailVerifiedAt, null, 'the reset verified the address')
  t.equal(await services.store.findSecondFactor(account.id), null)
  t.same((await postJson(base, '/accounts/v2/login', { email: 'dan@example.com', password: 'dan chose this one' })).status, 200)
})

t.test('an owner whose address is verified keeps her passkey through a reset: only an unverified account is claimed', async (t) => {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  const { base, dataDir, services } = reference
  const owner = await signedInOwner(reference, 'eva@example.com')
  t.equal((await addPasskey(owner)).status, 200)
  clock.passDays(31)
  t.equal((await postJson(base, '/accounts/resetPasswordRequest', { email: 'eva@example.com' })).status, 200)
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  t.equal((await postJson(base, '/accounts/resetPassword', { token, password: 'eva chose this one', confirm_password: 'eva chose this one' })).status, 200)
  const accountId = (await services.store.findAccountByEmail('eva@example.com'))!.id
  t.equal((await services.store.listPasskeys(accountId)).length, 1, 'her passkey stays')
  t.equal(await passkeySignIn(owner), 200)
})

t.test('a mail scanner opening the verification link does not hand a squatter\'s passkey the address: only a browser that signed in verifies', async (t) => {
  const logs = logCollector()
  const clock = new Clock()
  const google = await startGoogleStandIn(t)
  const reference = await startReference(t, { now: clock.now, logStream: logs.stream, env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl } })
  const { base, dataDir, services } = reference
  await registerAccount(base, 'fay@gmail.example')
  const mallory = await signedInOwner(reference, 'fay@gmail.example', { registered: true })
  t.equal((await addPasskey(mallory)).status, 200, 'the squatter adds a passkey')
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail')

  // Fay's mail scanner (or Fay herself, puzzled) opens the link: no cookie of the account's browsers.
  for (let opening = 0; opening < 2; opening++) {
    const scanned = await openLink(link.replace(TEST_PUBLIC_URL, base))
    t.equal(scanned.location, `${TEST_PUBLIC_URL}/?view=login&notice=verify-in-known-browser&ui_locales=en`, 'the link says how to finish, and stays unused')
  }
  const account = (await services.store.findAccountByEmail('fay@gmail.example'))!
  t.equal(account.emailVerifiedAt, null, 'the address is not verified')
  t.ok(logs.lines.some((line) => line.audit === 'verify.needs-known-browser'))

  // So Fay's Google sign-in still takes the account, and the squatter's passkey with it.
  const login = await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' },
    { authorization: `Bearer ${await google.credential({ email: 'fay@gmail.example', sub: 'fay-google' })}` })
  t.equal(login.status, 200)
  t.equal(await passkeySignIn(mallory), 401, 'the squatter\'s passkey signs in no more')
})

t.test('an owner with a passkey verifies her address from the browser she signed in with', async (t) => {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  const { base, dataDir, services } = reference
  await registerAccount(base, 'gwen@example.com')
  const gwen = await signedInOwner(reference, 'gwen@example.com', { registered: true })
  t.equal((await addPasskey(gwen)).status, 200)
  const { link } = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail')
  const opened = await openLink(link.replace(TEST_PUBLIC_URL, base), { cookie: gwen.browser.cookie ?? '' })
  t.equal(opened.location, `${TEST_PUBLIC_URL}/?view=login&notice=email-verified&ui_locales=en`)
  const account = (await services.store.findAccountByEmail('gwen@example.com'))!
  t.not(account.emailVerifiedAt, null, 'verified')
  t.equal((await services.store.listPasskeys(account.id)).length, 1, 'her passkey stays')
})
