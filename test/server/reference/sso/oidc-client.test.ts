import t, { type Test } from 'tap'
import { parseSsoConnections, type OidcConnection } from '../../../../server/reference/sso/connections.js'
import { OidcClient } from '../../../../server/reference/sso/oidc-client.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { startOidcProvider } from '../../../fixtures/sso/sso-oidc-provider.js'
import { OIDC_DOMAIN, startSsoStack, type Landing } from '../../../fixtures/sso/sso-service.js'

t.test('OIDC single sign-on, with a real provider, through the edge', { skip: opensslSkip }, async (t) => {
  // A real OpenID provider (oidc-provider) and the real edge in front of the
  // reference service; the browser's every hop is driven by hand.
  const stack = await startSsoStack(t)
  for (const login of ['alice', 'bob', 'carol', 'dave', 'mallory', 'victim', 'walter']) {
    stack.oidc.users.set(login, { email: `${login}@${OIDC_DOMAIN}`, email_verified: true })
  }
  stack.oidc.users.set('outsider', { email: 'outsider@elsewhere.example', email_verified: true })
  stack.oidc.users.set('unverified', { email: `unverified@${OIDC_DOMAIN}`, email_verified: false })
  stack.oidc.users.set('anonymous', {})

  const startOidc = async (browser: TestBrowser, login: string, extra: Record<string, unknown> = {}): Promise<string> =>
    stack.ssoUrl(browser, { email: `${login}@${OIDC_DOMAIN}`, source: 'login', ...extra })
  const expectRefusedLanding = (t: Test, landing: Landing, message: RegExp, reason: RegExp): void =>
    stack.expectRefusedLanding(t, landing, 'oidc', message, reason)

  t.test('an OIDC login round trip lands signed in, with the redirect and context kept', async (t) => {
    const browser = new TestBrowser()
    const started = Date.now()
    const landing = await stack.oidcRoundTrip(browser, 'alice', {
      redirect: 'https://app.example.com/dashboard?tab=2',
      resource_type: 'cluster',
      cluster_name: 'prod-eu',
      insecure_allowed_orgs: []
    })
    t.equal(landing.url.origin, stack.publicUrl, 'back on the page')
    t.equal(landing.url.pathname, '/')
    t.equal(landing.params.get('oidc'), '1')
    t.equal(landing.params.get('login'), '1')
    t.equal(landing.params.get('email'), `alice@${OIDC_DOMAIN}`)
    t.match(landing.params.get('id'), /^[\w-]{43}$/)
    t.equal(landing.params.get('redirect'), 'https://app.example.com/dashboard?tab=2')
    t.equal(landing.params.get('resource_type'), 'cluster')
    t.equal(landing.params.get('cluster_name'), 'prod-eu')

    const completed = await stack.completeLogin(browser, landing)
    t.equal(completed.status, 200, typeof completed.body.error === 'string' ? completed.body.error : 'signed in')
    const claims = await stack.verifyAuthToken(String(completed.body.auth))
    t.equal(claims.email, `alice@${OIDC_DOMAIN}`)
    t.same(claims.amr, ['sso'])
    t.equal(claims.email_verified, true, 'the domain\'s identity provider vouched for the address')
    t.equal(claims.resource_type, 'cluster')
    t.equal(claims.cluster_name, 'prod-eu')
    t.equal(completed.body.refresh, undefined, 'the page\'s call gets no refresh token in the body')
    t.match(completed.setCookie.find((line) => line.startsWith('refresh=')), /^refresh=[\w-]+;.*; HttpOnly;/, 'it is in the edge\'s HttpOnly cookie')
    t.comment(`OIDC round trip through the edge, provider included: ${Date.now() - started} ms`)
  })

  t.test('the authorization request uses PKCE (S256), state, nonce and the documented redirect URI', async (t) => {
    const url = new URL(await startOidc(new TestBrowser(), 'bob'))
    t.equal(url.origin, new URL(stack.oidc.issuer).origin)
    t.equal(url.searchParams.get('response_type'), 'code')
    t.equal(url.searchParams.get('client_id'), stack.oidc.clientId)
    t.equal(url.searchParams.get('redirect_uri'), `${stack.publicUrl}/accounts/auth/sso/oidc/callback`)
    t.equal(url.searchParams.get('code_challenge_method'), 'S256')
    t.match(url.searchParams.get('code_challenge'), /^[\w-]{43}$/)
    t.match(url.searchParams.get('state'), /^[\w-]{43}$/)
    t.match(url.searchParams.get('nonce'), /^[\w-]{43}$/)
    t.match(url.searchParams.get('scope'), /\bopenid\b/)
    t.equal(url.searchParams.get('login_hint'), `bob@${OIDC_DOMAIN}`)
  })

  t.test('the email is taken from userinfo when the provider keeps it out of the ID token', async (t) => {
    // oidc-provider, like many, only puts scope claims in the ID token when no access token is issued.
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'carol')
    t.equal(landing.params.get('email'), `carol@${OIDC_DOMAIN}`)
  })

  t.test('a callback with a wrong state is refused, and the genuine one still works', async (t) => {
    const browser = new TestBrowser()
    const callback = new URL(await stack.oidc.signIn(browser, await startOidc(browser, 'dave'), 'dave'))
    const forged = new URL(callback)
    forged.searchParams.set('state', 'A'.repeat(43))
    expectRefusedLanding(t, await stack.returnToPage(browser, forged.href), /not started in this browser/, /unknown, used or expired/)

    const genuine = await stack.returnToPage(browser, callback.href)
    t.equal(genuine.params.get('email'), `dave@${OIDC_DOMAIN}`)
  })

  t.test('a callback without the state cookie is refused, and takes nothing from the browser that has it', async (t) => {
    const browser = new TestBrowser()
    const callback = await stack.oidc.signIn(browser, await startOidc(browser, 'walter'), 'walter')
    expectRefusedLanding(t, await stack.returnToPage(new TestBrowser(), callback), /not started in this browser/, /no state cookie/)
    const genuine = await stack.returnToPage(browser, callback)
    t.equal(genuine.params.get('email'), `walter@${OIDC_DOMAIN}`)
  })

  t.test("an attacker's own code cannot sign a victim's browser in as him (login CSRF)", async (t) => {
    const attacker = new TestBrowser()
    const attackersCallback = await stack.oidc.signIn(attacker, await startOidc(attacker, 'mallory'), 'mallory')
    const victim = new TestBrowser()
    await startOidc(victim, 'victim') // the victim has a state cookie of her own
    expectRefusedLanding(t, await stack.returnToPage(victim, attackersCallback), /not started in this browser/, /state cookie of another browser/)
  })

  t.test('a callback followed in another browser that has a state cookie of its own takes nothing: the rightful browser still signs in', async (t) => {
    const browser = new TestBrowser()
    const callback = await stack.oidc.signIn(browser, await startOidc(browser, 'walter'), 'walter')
    const stranger = new TestBrowser()
    await startOidc(stranger, 'stranger')
    expectRefusedLanding(t, await stack.returnToPage(stranger, callback), /not started in this browser/, /state cookie of another browser/)
    t.equal((await stack.returnToPage(browser, callback)).params.get('email'), `walter@${OIDC_DOMAIN}`, 'his sign-in was still there')
  })

  t.test('a callback is used once: following it again is refused', async (t) => {
    const browser = new TestBrowser()
    const callback = await stack.oidc.signIn(browser, await startOidc(browser, 'bob'), 'bob')
    t.ok((await stack.returnToPage(browser, callback)).params.has('id'))
    expectRefusedLanding(t, await stack.returnToPage(browser, callback), /not started in this browser/, /unknown, used or expired/)
  })

  t.test('cancelling at the provider brings the visitor back to the view it started from, with its context', async (t) => {
    const browser = new TestBrowser()
    const ssoUrl = await startOidc(browser, 'alice', { source: 'register', redirect: 'https://app.example.com/' })
    const landing = await stack.returnToPage(browser, await stack.oidc.cancel(browser, ssoUrl))
    expectRefusedLanding(t, landing, /^Your identity provider did not sign you in\.$/, /answered access_denied/)
    t.equal(landing.params.get('view'), 'register')
    t.equal(landing.params.get('redirect'), 'https://app.example.com/')
  })

  t.test('a provider asserting an address outside its domain is refused', async (t) => {
    const browser = new TestBrowser()
    const callback = await stack.oidc.signIn(browser, await startOidc(browser, 'alice'), 'outsider')
    expectRefusedLanding(t, await stack.returnToPage(browser, callback), /address outside oidc\.example\.com/, /outside the connection domain/)
  })

  t.test('an address the provider says it has not verified is refused', async (t) => {
    const browser = new TestBrowser()
    const callback = await stack.oidc.signIn(browser, await startOidc(browser, 'unverified'), 'unverified')
    expectRefusedLanding(t, await stack.returnToPage(browser, callback), /has not verified your email address/, /not verified/)
  })

  t.test('a provider that shares no email address is refused', async (t) => {
    const browser = new TestBrowser()
    const callback = await stack.oidc.signIn(browser, await startOidc(browser, 'alice'), 'anonymous')
    expectRefusedLanding(t, await stack.returnToPage(browser, callback), /did not share your email address/, /no email/)
  })

  t.test('a callback whose code was tampered with does not verify', async (t) => {
    const browser = new TestBrowser()
    const callback = new URL(await stack.oidc.signIn(browser, await startOidc(browser, 'alice'), 'alice'))
    callback.searchParams.set('code', `${callback.searchParams.get('code')}x`)
    expectRefusedLanding(t, await stack.returnToPage(browser, callback.href), /could not be verified/, /did not verify/)
  })

  t.test('a provider that only takes the client secret in the form body gets it there', async (t) => {
    const redirectUri = 'http://127.0.0.1:9/accounts/auth/sso/oidc/callback'
    const provider = await startOidcProvider(t, { redirectUri, tokenEndpointAuthMethod: 'client_secret_post' })
    provider.users.set('paula', { email: 'paula@post.example', email_verified: true })
    const [connection] = parseSsoConnections(JSON.stringify([
      { domain: 'post.example', type: 'oidc', issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret }
    ])) as [OidcConnection]
    const client = new OidcClient(connection, redirectUri, Date.now)
    const browser = new TestBrowser()
    const { url, secrets } = await client.begin('paula@post.example')
    const callback = new URL(await provider.signIn(browser, url, 'paula'))
    const identity = await client.finish(callback.search.slice(1), secrets)
    t.same(identity, { subject: 'paula', email: 'paula@post.example', emailVerified: true })
  })
})
