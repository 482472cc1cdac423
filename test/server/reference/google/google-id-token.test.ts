import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const CLIENT_ID = '1234-test.apps.googleusercontent.com'
const LOGIN_FAILED = { error: 'Google login failed.' }
const REGISTER_FAILED = { error: 'Google register failed.' }

interface GoogleStandIn {
  readonly jwksUrl: string
  idToken (claims?: JWTPayload, options?: { key?: CryptoKey | Uint8Array, kid?: string, alg?: string }): Promise<string>
}

/** Google's side: an RS256 key, its key set served on a loopback port, and ID tokens signed with it. */
async function googleStandIn (t: Test): Promise<GoogleStandIn> {
  const { publicKey, privateKey } = await generateKeyPair('RS256')
  const kid = 'google-test-key'
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] }
  const server = await startUpstream(t, jsonAnswer(200, jwks))
  return {
    jwksUrl: `${server.url}/oauth2/v3/certs`,
    async idToken (claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({
        iss: 'https://accounts.google.com',
        aud: CLIENT_ID,
        sub: '110169484474386276334',
        email: 'Grace.Hopper@gmail.com',
        email_verified: true,
        iat: now,
        exp: now + 3600,
        jti: randomUUID(),
        ...claims
      })
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? kid })
        .sign(options.key ?? privateKey)
    }
  }
}

async function withGoogle (t: Test, env: Record<string, string> = {}) {
  const google = await googleStandIn(t)
  const reference = await startReference(t, { env: { GOOGLE_CLIENT_ID: CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl, ...env } })
  const googleRegister = (idToken: string | null, body: Record<string, unknown> = { register_method: 'GOOGLE' }) =>
    postJson(reference.base, '/accounts/auth/register', body, idToken === null ? {} : { authorization: `Bearer ${idToken}` })
  const googleLogin = (idToken: string | null, body: Record<string, unknown> = {}) =>
    postJson(reference.base, '/accounts/v2/auth/login', { email: 'grace.hopper@gmail.com', login_method: 'GOOGLE', ...body },
      idToken === null ? {} : { authorization: `Bearer ${idToken}` })
  return { google, reference, googleRegister, googleLogin }
}

t.test('signing up with Google creates an account tied to the Google subject; logging in with Google then succeeds', async (t) => {
  const { google, reference, googleRegister, googleLogin } = await withGoogle(t)
  const idToken = await google.idToken()
  const registered = await googleRegister(idToken)
  t.same([registered.status, registered.body], [200, { success: 'Your account has been created with Google. You can now log in with Google.' }])
  const account = await reference.services.store.findAccountByGoogleSubject('110169484474386276334')
  t.equal(account!.email, 'Grace.Hopper@gmail.com')
  t.equal(account!.passwordHash, null, 'no password')

  const login = await googleLogin(await google.idToken(), { resource_type: 'notebook' })
  t.equal(login.status, 200)
  t.same(Object.keys(login.body).sort(), ['auth', 'refresh'])
  const claims = decodeJwt(login.body.auth as string)
  t.same(claims.amr, ['google'])
  t.equal(claims.email_verified, true, 'Google vouched for the address')
  t.equal(account!.emailVerifiedAt !== null, true)
  t.equal(claims.sub, account!.id)
  t.equal(claims.resource_type, 'notebook')
})

t.test('a Google login for a subject with no account answers 404 and asks to sign up first', async (t) => {
  const { google, googleLogin } = await withGoogle(t)
  const answer = await googleLogin(await google.idToken())
  t.same([answer.status, answer.body], [404, { error: 'No account is registered with this Google account yet. Sign up with Google first.' }])
})

t.test('signing up twice with one Google account is refused', async (t) => {
  const { google, googleRegister } = await withGoogle(t)
  await googleRegister(await google.idToken())
  const again = await googleRegister(await google.idToken({ email: 'another-address@gmail.com' }))
  t.same([again.status, again.body], [409, { error: 'This Google account is already registered. Log in with Google.' }])
})

t.test('a Google identity is never linked to a verified password account on email alone', async (t) => {
  // An account never verified is claimed instead (test/server/reference/account-changes/pre-hijack.test.ts).
  const { google, reference, googleRegister, googleLogin } = await withGoogle(t)
  await registerAccount(reference.base, 'grace.hopper@GMAIL.com')
  const registeredAccount = await reference.services.store.findAccountByEmail('grace.hopper@gmail.com')
  await reference.services.store.markEmailVerified(registeredAccount!.id, Date.now())
  const idToken = await google.idToken()
  const registered = await googleRegister(idToken)
  t.same([registered.status, registered.body], [409, { error: 'An account with this email already exists. Log in with your password.' }])
  const account = await reference.services.store.findAccountByEmail('grace.hopper@gmail.com')
  t.equal(account!.googleSubject, null, 'the password account gained no Google identity')
  const login = await googleLogin(await google.idToken())
  t.equal(login.status, 404, 'and a Google login does not reach it')
  t.equal((await postJson(reference.base, '/accounts/v2/login', { email: 'grace.hopper@gmail.com', password: GOOD_PASSWORD })).status, 200)
})

t.test('a Google login honours allowed organisations like a password login', async (t) => {
  const { google, reference, googleRegister, googleLogin } = await withGoogle(t)
  await googleRegister(await google.idToken())
  const account = await reference.services.store.findAccountByGoogleSubject('110169484474386276334')
  await reference.services.store.addMembership(account!.id, 'acme')
  t.same(decodeJwt((await googleLogin(await google.idToken(), { insecure_allowed_orgs: ['acme', 'globex'] })).body.auth as string).orgs, ['acme'])
  const refused = await googleLogin(await google.idToken(), { insecure_allowed_orgs: ['globex'] })
  t.same([refused.status, refused.body], [403, { error: 'Your account is not a member of an organisation allowed here.' }])
  const bounded = await googleLogin(await google.idToken(), { cluster_name: 'c'.repeat(129) })
  t.same([bounded.status, bounded.body], [400, { error: 'The cluster name is not valid.' }])
})

t.test('ID tokens that fail a check are refused with the readable text, for login and sign-up alike', async (t) => {
  const { google, googleRegister, googleLogin } = await withGoogle(t)
  await googleRegister(await google.idToken())
  const stranger = await generateKeyPair('RS256')
  const now = Math.floor(Date.now() / 1000)
  const refused: Array<[string, string | null]> = [
    ['another audience', await google.idToken({ aud: 'someone-else.apps.googleusercontent.com' })],
    // Another app's token that lists us among its audiences, replayed here by that app's operator.
    ['several audiences, issued to another client', await google.idToken({ aud: [CLIENT_ID, 'other-app.apps.googleusercontent.com'], azp: 'other-app.apps.googleusercontent.com' })],
    ['several audiences, no authorised party', await google.idToken({ aud: [CLIENT_ID, 'other-app.apps.googleusercontent.com'] })],
    ['another issuer', await google.idToken({ iss: 'https://accounts.example.com' })],
    ['an expired token', await google.idToken({ iat: now - 7200, exp: now - 3600 })],
    ['a signature by another key', await google.idToken({}, { key: stranger.privateKey })],
    ['an email Google has not verified', await google.idToken({ email_verified: false })],
    ['an email_verified given as text', await google.idToken({ email_verified: 'true' })],
    ['no email', await google.idToken({ email: undefined })],
    ['an HMAC token', await google.idToken({}, { key: new TextEncoder().encode('x'.repeat(32)), alg: 'HS256' })],
    ['a token that is not a JWT', 'not.a.token'],
    ['no bearer token', null]
  ]
  for (const [name, idToken] of refused) {
    const login = await googleLogin(idToken)
    t.same([login.status, login.body], [401, LOGIN_FAILED], `login: ${name}`)
    const registered = await googleRegister(idToken)
    t.same([registered.status, registered.body], [401, REGISTER_FAILED], `sign-up: ${name}`)
  }
  t.equal((await googleLogin(await google.idToken({ iss: 'accounts.google.com' }))).status, 200, 'Google\'s issuer without the scheme is accepted')
  t.equal((await googleLogin(await google.idToken({ aud: [CLIENT_ID, 'other-app.apps.googleusercontent.com'], azp: CLIENT_ID }))).status, 200,
    'several audiences are accepted when the token was issued to us')
})

t.test('a Google ID token is accepted once: caught and sent again, it is refused', async (t) => {
  const { google, googleRegister, googleLogin } = await withGoogle(t)
  t.equal((await googleRegister(await google.idToken())).status, 200)
  const idToken = await google.idToken()
  t.equal((await googleLogin(idToken)).status, 200, 'the owner signs in')
  const replayed = await googleLogin(idToken)
  t.same([replayed.status, replayed.body], [401, LOGIN_FAILED], 'the same token again, within its hour, is refused')
  const asRegistration = await googleRegister(idToken)
  t.same([asRegistration.status, asRegistration.body], [401, REGISTER_FAILED], 'and so at the sign-up path')

  // Without a jti the token is remembered by what its signature covers: a second spelling of the
  // signature (its last base64url character changed in the bits that decode to nothing) is the same token.
  const withoutJti = await google.idToken({ jti: undefined })
  t.equal(decodeJwt(withoutJti).jti, undefined)
  t.equal((await googleLogin(withoutJti)).status, 200)
  t.equal((await googleLogin(withoutJti)).status, 401, 'a token without a jti is accepted once too')
  const last = withoutJti.at(-1)!
  const respelt = withoutJti.slice(0, -1) + 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charAt(
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(last) ^ 1)
  t.not(respelt, withoutJti)
  t.equal((await googleLogin(respelt)).status, 401, 'nor is it accepted again under another spelling of its signature')
})

/** What the page does (client/google/google-nonce.ts): a secret kept in the page, and its SHA-256 given to Google as the nonce. */
function pageNonce (): { secret: string, nonce: string } {
  const secret = randomBytes(32).toString('base64url')
  return { secret, nonce: createHash('sha256').update(secret).digest('base64url') }
}

t.test('a token Google minted for another page\'s nonce is refused; one for this page\'s nonce is accepted', async (t) => {
  // The attack: a token caught on its way from another page (another tab, a log, an extension), sent
  // with the attacker's own nonce secret, or none. The token carries only the hash of the victim page's secret.
  const { google, googleRegister, googleLogin } = await withGoogle(t)
  const victimPage = pageNonce()
  const attackerPage = pageNonce()
  const signUp = await googleRegister(await google.idToken({ nonce: victimPage.nonce }), { register_method: 'GOOGLE', google_nonce_secret: victimPage.secret })
  t.equal(signUp.status, 200, 'sign-up with the page\'s own nonce')

  const caught = await google.idToken({ nonce: victimPage.nonce })
  const withOwnSecret = await googleLogin(caught, { google_nonce_secret: attackerPage.secret })
  t.same([withOwnSecret.status, withOwnSecret.body], [401, LOGIN_FAILED], 'refused with another page\'s secret')
  t.same((await googleLogin(caught)).status, 401, 'refused without a secret')
  t.same((await googleLogin(caught, { google_nonce_secret: victimPage.nonce })).status, 401, 'refused with the nonce itself given as the secret')
  t.same((await googleRegister(caught, { register_method: 'GOOGLE', google_nonce_secret: attackerPage.secret })).status, 401, 'and at the sign-up path')
  t.equal((await googleLogin(caught, { google_nonce_secret: victimPage.secret })).status, 200, 'the page that asked for it signs in (the refusals did not spend it)')
  t.equal((await googleLogin(await google.idToken({ nonce: 42 }), { google_nonce_secret: victimPage.secret })).status, 401, 'a nonce that is not text is refused')
  t.equal((await googleLogin(await google.idToken(), { google_nonce_secret: attackerPage.secret })).status, 200,
    'a token without a nonce is taken (a client other than the page), whatever secret comes with it')
})

t.test('with GOOGLE_REQUIRE_NONCE a token without a nonce is refused', async (t) => {
  const { google, googleRegister, googleLogin } = await withGoogle(t, { GOOGLE_REQUIRE_NONCE: 'true' })
  const page = pageNonce()
  t.equal((await googleRegister(await google.idToken({ nonce: page.nonce }), { register_method: 'GOOGLE', google_nonce_secret: page.secret })).status, 200)
  t.same((await googleLogin(await google.idToken())).status, 401, 'no nonce: refused')
  t.equal((await googleLogin(await google.idToken({ nonce: page.nonce }), { google_nonce_secret: page.secret })).status, 200)
})

t.test('two uses of one Google ID token at once: exactly one signs in', async (t) => {
  const { google, googleRegister, googleLogin } = await withGoogle(t)
  await googleRegister(await google.idToken())
  const idToken = await google.idToken()
  const answers = await Promise.all(Array.from({ length: 8 }, () => googleLogin(idToken)))
  t.same(answers.map((answer) => answer.status).sort(), [200, 401, 401, 401, 401, 401, 401, 401])
})

t.test('without GOOGLE_CLIENT_ID every Google token is refused', async (t) => {
  const google = await googleStandIn(t)
  const { base } = await startReference(t, { env: { GOOGLE_JWKS_URL: google.jwksUrl } })
  const answer = await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, { authorization: `Bearer ${await google.idToken()}` })
  t.same([answer.status, answer.body], [401, REGISTER_FAILED])
})

t.test('methods other than Google are refused at the Google paths', async (t) => {
  const { google, googleRegister, googleLogin } = await withGoogle(t)
  const idToken = await google.idToken()
  t.same((await googleLogin(idToken, { login_method: 'FACEBOOK' })).body, { error: 'This sign-in method is not supported.' })
  t.same((await googleRegister(idToken, { register_method: 'FACEBOOK' })).body, { error: 'This sign-up method is not supported.' })
  t.same((await googleRegister(idToken, {})).status, 400)
})
