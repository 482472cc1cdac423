import t, { type Test } from 'tap'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { outboxEmails, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { OIDC_DOMAIN, SAML_DOMAIN, startSsoStack } from '../../../fixtures/sso/sso-service.js'

t.test('the page\'s completion of single sign-on', { skip: opensslSkip }, async (t) => {
  // The page's automatic completion after the provider's leg: the id works
  // once, within 10 minutes, in the browser it was issued to.
  const stack = await startSsoStack(t)
  for (const login of ['ann', 'ben', 'cid', 'dee', 'eve', 'fay', 'gus', 'hal', 'ivy', 'jon', 'kim', 'lee', 'max', 'ned', 'pam']) {
    stack.oidc.users.set(login, { email: `${login}@${OIDC_DOMAIN}`, email_verified: true })
  }
  const REFUSED = /invalid, used, expired or was opened in another browser/

  function expectRefused (t: Test, completed: { status: number, body: Record<string, unknown> }, reason: RegExp): void {
    t.equal(completed.status, 401)
    t.match(completed.body, { error: REFUSED })
    t.notOk('auth' in completed.body, 'no token')
    t.match(stack.lastRefusal(), reason, 'refused for the right reason')
  }

  t.test('a replayed id is refused, even in the browser it was issued to', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'ann')
    const keeper = new TestBrowser()
    browser.copyCookieTo(keeper, stack.publicUrl, 'sso_state') // the same browser's cookie, kept past the first completion
    t.equal((await stack.completeLogin(browser, landing)).status, 200, 'the first use signs in')
    expectRefused(t, await stack.completeLogin(keeper, landing), /unknown, used or expired id/)
    expectRefused(t, await stack.completeLogin(browser, landing), /no state cookie/)
  })

  t.test('a replayed SAML id is refused', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.samlRoundTrip(browser, `ben@${SAML_DOMAIN}`)
    const keeper = new TestBrowser()
    browser.copyCookieTo(keeper, stack.publicUrl, 'sso_state')
    t.equal((await stack.completeLogin(browser, landing)).status, 200)
    expectRefused(t, await stack.completeLogin(keeper, landing), /unknown, used or expired id/)
  })

  t.test('an id still works after 9 minutes and is refused after 10', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'cid')
    stack.advanceClock(9 * 60_000)
    t.equal((await stack.completeLogin(browser, landing)).status, 200, 'within 10 minutes')

    const late = new TestBrowser()
    const expiring = await stack.samlRoundTrip(late, `cid@${SAML_DOMAIN}`)
    stack.advanceClock(10 * 60_000 + 1)
    expectRefused(t, await stack.completeLogin(late, expiring), /unknown, used or expired id/)
  })

  t.test('a browser without the state cookie cannot complete, and the id stays usable by its own browser', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'dee')
    expectRefused(t, await stack.completeLogin(new TestBrowser(), landing), /no state cookie/)
    t.equal((await stack.completeLogin(browser, landing)).status, 200, 'the right browser still signs in')
  })

  t.test('a return link made by someone else signs nobody in, even in a browser with an SSO cookie of its own', async (t) => {
    const attacker = new TestBrowser()
    const attackersLink = await stack.oidcRoundTrip(attacker, 'eve')
    const victim = new TestBrowser()
    await stack.oidcRoundTrip(victim, 'fay') // the victim's own sign-in, not completed yet
    expectRefused(t, await stack.completeLogin(victim, attackersLink), /bound to another browser/)
  })

  t.test('the email sent with the id must be the one the provider asserted', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'gus')
    expectRefused(t, await stack.completeLogin(browser, landing, { email: `hal@${OIDC_DOMAIN}` }), /email differs/)
  })

  t.test('an id is only good for the protocol it was issued for', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'ivy')
    expectRefused(t, await stack.completeLogin(browser, landing, { login_method: 'SAML' }), /other protocol/)
  })

  t.test('every completion answer removes the state cookie', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'jon')
    t.ok(browser.cookie(stack.publicUrl, 'sso_state'), 'the cookie is there before')
    const completed = await stack.completeLogin(browser, landing)
    // Through the edge on http://127.0.0.1, a loopback page over plain http: without Secure (docs/security.md, "Plain http on loopback"; over https it keeps it: test/server/edge/http/loopback-http.test.ts).
    t.match(completed.setCookie.join('\n'), /^sso_state=; Max-Age=0; Path=\/accounts; HttpOnly; SameSite=Lax$/m)
    t.notOk(browser.cookie(stack.publicUrl, 'sso_state'), 'and gone after')
  })

  t.test('SSO login creates the account of the asserted address on first use, then signs the same account in', async (t) => {
    t.equal(await stack.services.store.findAccountByEmail(`kim@${OIDC_DOMAIN}`), null)
    const first = new TestBrowser()
    const one = await stack.completeLogin(first, await stack.oidcRoundTrip(first, 'kim'))
    const account = await stack.services.store.findAccountByEmail(`kim@${OIDC_DOMAIN}`)
    t.ok(account, 'created just in time')
    t.equal(account?.passwordHash, null, 'without a password')
    const second = new TestBrowser()
    const two = await stack.completeLogin(second, await stack.oidcRoundTrip(second, 'kim'))
    const [a, b] = await Promise.all([stack.verifyAuthToken(String(one.body.auth)), stack.verifyAuthToken(String(two.body.auth))])
    t.equal(a.sub, account?.id)
    t.equal(b.sub, account?.id)
    t.equal(a.email_verified, true, 'an account made by SSO has the address its provider vouched for')
  })

  t.test('pre-hijack: a password account registered before its owner passes to the owner at the SSO sign-in; the attacker is out', async (t) => {
    // The attack: register lee@ with a password of one's own and keep a session, before Lee first signs in through SSO.
    const ATTACKER_PASSWORD = 'the attacker own passphrase'
    const register = await postJson(stack.publicUrl, '/accounts/register', { email: `Lee@${OIDC_DOMAIN}`, password: ATTACKER_PASSWORD, confirm_password: ATTACKER_PASSWORD })
    t.equal(register.status, 200)
    const attacker = await postJson(stack.publicUrl, '/accounts/v2/login', { email: `lee@${OIDC_DOMAIN}`, password: ATTACKER_PASSWORD })
    t.equal(attacker.status, 200, 'the attacker holds a session')
    const account = await stack.services.store.findAccountByEmail(`lee@${OIDC_DOMAIN}`)

    const browser = new TestBrowser()
    const completed = await stack.completeLogin(browser, await stack.oidcRoundTrip(browser, 'lee'))
    t.equal(completed.status, 200, 'the owner is signed in')
    const claims = await stack.verifyAuthToken(String(completed.body.auth))
    t.equal(claims.sub, account?.id, 'into the account of the address')
    t.equal(claims.email_verified, true, 'whose address the provider has now verified')

    t.same((await postJson(stack.publicUrl, '/accounts/v2/login', { email: `lee@${OIDC_DOMAIN}`, password: ATTACKER_PASSWORD })).body,
      { error: 'Invalid email or password.' }, 'the attacker\'s password fails')
    t.equal((await postJson(stack.publicUrl, '/accounts/token/refresh', { refresh: attacker.body.refresh })).status, 401, 'the attacker\'s session has ended')
    const told = await waitForEmail(stack.dataDir, 1, 'claimed')
    t.match(told.raw, new RegExp(`^To: Lee@${OIDC_DOMAIN.replace(/\./g, '\\.')}$`, 'm'), 'the owner is told')
    t.match(told.raw, /^Subject: Your Threshold account is now signed in with single sign-on$/m)

    const again = new TestBrowser()
    t.equal((await stack.completeLogin(again, await stack.oidcRoundTrip(again, 'lee'))).status, 200, 'the next SSO sign-in is an ordinary one')
    t.equal((await outboxEmails(stack.dataDir, 'claimed')).length, 1, 'and tells nobody anything')
  })

  t.test('SSO register creates the account once, and says so when it exists', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'max', { source: 'register' })
    t.equal(landing.params.get('register'), '1')
    const registered = await stack.completeRegister(browser, landing)
    t.equal(registered.status, 200)
    t.match(registered.body, { success: 'Your account has been created. You can now log in with single sign-on.' })
    t.ok(await stack.services.store.findAccountByEmail(`max@${OIDC_DOMAIN}`))

    const again = new TestBrowser()
    const existing = await stack.completeRegister(again, await stack.oidcRoundTrip(again, 'max', { source: 'register' }))
    t.equal(existing.status, 409)
    t.match(existing.body, { error: /already exists/ })
  })

  t.test('allowed organisations apply to SSO logins as to any other', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'ned', { insecure_allowed_orgs: ['acme'] })
    t.same(landing.params.getAll('allowed_org'), ['acme'], 'carried through the provider and back')
    const refused = await stack.completeLogin(browser, landing)
    t.equal(refused.status, 403)
    t.match(refused.body, { error: /not a member/ })
  })

  t.test('the page comes back from the provider in the language it spoke, not the browser\'s', async (t) => {
    const english = await stack.oidcRoundTrip(new TestBrowser(), 'ned')
    t.equal(english.params.get('ui_locales'), 'en')
    // The page speaks German (its calls say so, whatever the browser's languages); the navigations
    // through the provider and back carry the browser's own, English.
    const browser = new TestBrowser(undefined, 'de')
    const ssoUrl = await stack.ssoUrl(browser, { email: `ned@${OIDC_DOMAIN}`, source: 'login' })
    browser.acceptLanguage = 'en-GB,en;q=0.9'
    const german = await stack.returnToPage(browser, await stack.oidc.signIn(browser, ssoUrl, 'ned'))
    t.equal(german.params.get('ui_locales'), 'de')
    t.ok(german.params.get('id'), 'and the sign-in completes as usual')
  })

  t.test('a completion without a valid id or method is refused before anything is looked up', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'pam')
    const noId = await stack.completeLogin(browser, landing, { id: 'short' })
    t.equal(noId.status, 400)
    t.match(noId.body, { error: /not valid/ })
    const badMethod = await stack.completeRegister(browser, landing, { register_method: 'KERBEROS' })
    t.equal(badMethod.status, 400)
  })
})
