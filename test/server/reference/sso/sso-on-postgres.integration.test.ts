import t from 'tap'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { OIDC_DOMAIN, SAML_DOMAIN, startSsoStack } from '../../../fixtures/sso/sso-service.js'

// Single sign-on keeps its transactions, ids and seen assertions in the
// account store: the same round trips and refusals hold on PostgreSQL.
t.test('single sign-on with DATABASE_URL', { skip: postgresSkip || opensslSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const stack = await startSsoStack(t, { databaseUrl: await server.createDatabase() })
  t.ok(stack.services.store instanceof PostgresAccountStore)
  stack.oidc.users.set('olga', { email: `olga@${OIDC_DOMAIN}`, email_verified: true })

  t.test('an OIDC login round trip signs in, and its id works once', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'olga')
    const keeper = new TestBrowser()
    browser.copyCookieTo(keeper, stack.publicUrl, 'sso_state')
    const completed = await stack.completeLogin(browser, landing)
    t.equal(completed.status, 200)
    t.equal((await stack.verifyAuthToken(String(completed.body.auth))).email, `olga@${OIDC_DOMAIN}`)
    t.equal((await stack.completeLogin(keeper, landing)).status, 401, 'replayed')
  })

  t.test('a SAML login round trip signs in; a replayed response and an expired id are refused', async (t) => {
    const browser = new TestBrowser()
    const ssoUrl = await stack.ssoUrl(browser, { email: `sam@${SAML_DOMAIN}`, source: 'login' })
    const post = await stack.saml.signIn(browser, ssoUrl, `sam@${SAML_DOMAIN}`)
    const landing = await stack.returnToPage(browser, post.action, { form: post.fields, crossSite: true })
    t.equal((await stack.completeLogin(browser, landing)).status, 200)
    const replayed = await stack.returnToPage(browser, post.action, { form: post.fields, crossSite: true })
    t.match(replayed.params.get('error'), /not started in this browser/)

    const late = new TestBrowser()
    const expiring = await stack.samlRoundTrip(late, `sam@${SAML_DOMAIN}`)
    stack.advanceClock(10 * 60_000 + 1)
    t.equal((await stack.completeLogin(late, expiring)).status, 401, 'expired')
  })
})
