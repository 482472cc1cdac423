import t from 'tap'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { OAUTH2_PROVIDER, OIDC_PROVIDER, startSocialStack } from '../../../fixtures/social/social-stack.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'

// Social sign-in keeps its transactions, ids and links in the account store: the round trip, the id's
// single use, a link from the account and the verified account's refusal hold on PostgreSQL too.
t.test('social sign-in with DATABASE_URL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const stack = await startSocialStack(t, { env: { DATABASE_URL: await server.createDatabase() } })
  t.ok(stack.services.store instanceof PostgresAccountStore)
  stack.oidc.users.set('pat', { email: 'pat@example.test', email_verified: true })
  stack.oauth2.users.set('pat-forge', { sub: 'pat-forge', email: 'pat@forge.test', email_verified: true })
  stack.oauth2.users.set('not-pat', { sub: 'not-pat', email: 'pat@example.test', email_verified: true })

  const browser = new TestBrowser()
  const landing = await stack.oidcLeg(browser, await stack.socialUrl(browser, OIDC_PROVIDER), 'pat')
  const signedIn = await stack.complete(browser, landing)
  t.equal(signedIn.status, 200)
  t.equal(signedIn.body.registered, true)
  t.equal((await stack.complete(browser, landing)).status, 401, 'the id works once')

  const auth = String(signedIn.body.auth)
  const started = await stack.post(browser, 'account/social/link/start', { provider: OAUTH2_PROVIDER }, auth)
  const linkLanding = await stack.oauth2Leg(browser, String(started.body.url), 'pat-forge')
  t.equal((await stack.post(browser, 'account/social/link', { id: linkLanding.params.get('id') }, auth)).status, 200)
  const account = await stack.services.store.findAccountByEmail('pat@example.test')
  t.same((await stack.services.store.socialLinks.list(account!.id)).map((link) => link.provider).sort(), [OAUTH2_PROVIDER, OIDC_PROVIDER].sort())

  const other = new TestBrowser()
  const refused = await stack.complete(other, await stack.oauth2Leg(other, await stack.socialUrl(other, OAUTH2_PROVIDER), 'not-pat'))
  t.equal(refused.status, 409, 'the verified account is not linked on its address')
})
