import { decodeJwt } from 'jose'
import t from 'tap'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { GOOD_PASSWORD, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { accountsLinkOf, outboxEmails, type EmailKind } from '../../../fixtures/emails/outbox.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { openLink } from '../../../fixtures/http/open-link.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'

// Verified addresses, claims and known browsers live in the account store:
// the same flows hold with DATABASE_URL as on the SQLite file.
t.test('accounts you can trust, with DATABASE_URL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const google = await startGoogleStandIn(t)
  const databaseUrl = await server.createDatabase()
  const { base, dataDir, services } = await startReference(t, {
    env: {
      DATABASE_URL: databaseUrl,
      REQUIRE_VERIFIED_EMAIL: 'true',
      GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID,
      GOOGLE_JWKS_URL: google.jwksUrl
    }
  })
  t.ok(services.store instanceof PostgresAccountStore)
  const onEdge = (link: string): string => link.replace(TEST_PUBLIC_URL, base)
  /** The `index`-th email of a kind to `address` (its local part), once it is there. */
  async function emailTo (kind: EmailKind, local: string, index = 0) {
    const deadline = Date.now() + 5000
    for (;;) {
      const emails = (await outboxEmails(dataDir, kind)).filter((email) => new RegExp(`^To: ${local}@`, 'm').test(email.raw))
      if (emails.length > index) return emails[index]!
      if (Date.now() > deadline) throw new Error(`no ${kind} email number ${index + 1} to ${local}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  t.test('registration reveals nothing; login waits for the address; a new link lets it in', async (t) => {
    const pat = await registerAccount(base, 'pat@example.com')
    const fresh = await postJson(base, '/accounts/register', { email: 'new@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
    const taken = await postJson(base, '/accounts/register', { email: 'PAT@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
    t.same([taken.status, taken.body], [fresh.status, fresh.body])
    await emailTo('registrationAttempt', 'pat')

    const refused = await postJson(base, '/accounts/v2/login', { email: 'pat@example.com', password: GOOD_PASSWORD })
    t.same([refused.status, refused.body.reason], [403, 'email_not_verified'])
    await postJson(base, '/accounts/verifyEmailRequest', { email: 'pat@example.com' })
    const link = accountsLinkOf(await emailTo('verify', 'pat', 1), 'verifyEmail').link
    t.equal((await openLink(onEdge(link), { cookie: pat.cookie! })).location, `${TEST_PUBLIC_URL}/?view=login&notice=email-verified&ui_locales=en`)
    t.equal(decodeJwt((await loginTokens(base, 'pat@example.com')).auth).email_verified, true)
  })

  t.test('a new browser is told of once; its link ends the sessions', async (t) => {
    const home = new TestBrowser()
    const register = await home.request(`${base}/accounts/register`, { json: { email: 'nell@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
    t.equal(register.status, 200)
    const verifyLink = onEdge(accountsLinkOf(await emailTo('verify', 'nell'), 'verifyEmail').link)
    t.match((await openLink(verifyLink, { cookie: home.cookieHeader(verifyLink) })).location, /notice=email-verified/, 'verified in the browser she registered in')
    t.equal((await home.request(`${base}/accounts/v2/login`, { json: { email: 'nell@example.com', password: GOOD_PASSWORD } })).status, 200)
    // The page's call is a browser's: the refresh token is in the edge's HttpOnly cookie.
    const homeRefresh = home.cookie(base, 'refresh')?.value
    t.ok(homeRefresh, 'the home browser holds its refresh cookie')
    const away = new TestBrowser()
    t.equal((await away.request(`${base}/accounts/v2/login`, { json: { email: 'nell@example.com', password: GOOD_PASSWORD } })).status, 200)
    const notice = await emailTo('newBrowser', 'nell')
    const { link, token } = accountsLinkOf(notice, 'endSessions')
    const landing = await openLink(onEdge(link))
    t.match(landing.location, /\/\?view=setPassword&token=[\w-]{43}&notice=end-sessions&ui_locales=en$/)
    const newPassword = 'nell has a new passphrase'
    t.equal((await postJson(base, '/accounts/resetPassword', { token, password: newPassword, confirm_password: newPassword })).status, 200)
    t.equal((await postJson(base, '/accounts/token/refresh', { refresh: homeRefresh })).status, 401, 'the home browser\'s session has ended')
  })

  t.test('pre-hijack: a Google sign-in claims the unverified account; the attacker is out', async (t) => {
    await registerAccount(base, 'gil@gmail.example', 'the attacker own passphrase')
    const gilsGoogle = async () => ({ authorization: `Bearer ${await google.credential({ email: 'gil@gmail.example', sub: 'gil-google' })}` })
    const registered = await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, await gilsGoogle())
    t.equal(registered.status, 200)
    t.equal((await postJson(base, '/accounts/v2/login', { email: 'gil@gmail.example', password: 'the attacker own passphrase' })).status, 401)
    t.equal((await postJson(base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, await gilsGoogle())).status, 200)
    await emailTo('claimed', 'gil')
  })

  t.test('a Google ID token is accepted once, across the instances that share the database', async (t) => {
    // The attack: the same token, caught once, sent again, and sent twice at once to two instances.
    const other = await startReference(t, {
      env: { DATABASE_URL: databaseUrl, GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl }
    })
    const hopsGoogle = { authorization: `Bearer ${await google.credential({ email: 'hop@gmail.example', sub: 'hop-google' })}` }
    t.equal((await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, hopsGoogle)).status, 200)
    const replayed = await postJson(other.base, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, hopsGoogle)
    t.same([replayed.status, replayed.body], [401, { error: 'Google login failed.' }], 'refused by the other instance the second time')

    const raced = { authorization: `Bearer ${await google.credential({ email: 'hop@gmail.example', sub: 'hop-google' })}` }
    const answers = await Promise.all([base, other.base, base, other.base].map((at) =>
      postJson(at, '/accounts/v2/auth/login', { login_method: 'GOOGLE' }, raced)))
    t.same(answers.map((answer) => answer.status).sort(), [200, 401, 401, 401], 'of four racing uses on two instances, exactly one signs in')
  })
})
