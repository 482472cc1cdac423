import t from 'tap'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { OAUTH2_PROVIDER, OIDC_PROVIDER, startSocialStack, type SocialStack } from '../../../fixtures/social/social-stack.js'
import { waitForEmail } from '../../../fixtures/emails/outbox.js'

/*
 * A social sign-in through the real edge, against a real OpenID Connect
 * provider and an OAuth 2.0 stand-in: the provider's leg, the return to the
 * page, the completion, and the linking rules (docs/social-sign-in.md).
 */

async function oidcLanding (stack: SocialStack, browser: TestBrowser, login: string, start: Record<string, unknown> = {}) {
  return await stack.oidcLeg(browser, await stack.socialUrl(browser, OIDC_PROVIDER, start), login)
}

t.test('a first sign-in creates the account, linked and verified, and says so; the same identity signs into it again', async (t) => {
  const stack = await startSocialStack(t)
  stack.oidc.users.set('nia', { email: 'nia@example.test', email_verified: true })
  const browser = new TestBrowser()
  const url = new URL(await stack.socialUrl(browser, OIDC_PROVIDER, { redirect: 'https://app.example.test/', resource_type: 'cluster', cluster_name: 'c1' }))
  t.equal(url.searchParams.get('code_challenge_method'), 'S256', 'PKCE')
  t.ok(url.searchParams.get('state'), 'a state')
  t.ok(url.searchParams.get('nonce'), 'a nonce')
  t.match(browser.cookie(stack.publicUrl, 'social_state')?.attributes, /HttpOnly/)
  t.match(browser.cookie(stack.publicUrl, 'social_state')?.attributes, /SameSite=Lax/)
  const landing = await stack.oidcLeg(browser, url.href, 'nia')
  t.equal(landing.params.get('social'), OIDC_PROVIDER)
  t.equal(landing.params.get('login'), '1')
  t.equal(landing.params.get('redirect'), 'https://app.example.test/', 'the context comes back')
  t.equal(landing.params.get('cluster_name'), 'c1')
  t.match(landing.params.get('id'), /^[\w-]{43}$/)
  const first = await stack.complete(browser, landing)
  t.equal(first.status, 200)
  t.type(first.body.auth, 'string')
  t.equal(first.body.registered, true, 'this sign-in created the account')
  t.ok(first.setCookie.some((cookie) => /^social_state=;/.test(cookie)), 'the answer clears the cookie')
  const account = await stack.services.store.findAccountByEmail('nia@example.test')
  t.ok(account?.emailVerifiedAt, 'verified')
  t.equal(account?.passwordHash, null, 'no password')
  const links = await stack.services.store.socialLinks.list(account!.id)
  t.same(links.map((link) => [link.provider, link.subject, link.email]), [[OIDC_PROVIDER, 'nia', 'nia@example.test']])
  t.ok(stack.auditEvents().some((entry) => entry.audit === 'social.login.succeeded'))

  // The provider's address changed since: the link, not the address, says who this is.
  stack.oidc.users.set('nia', { email: 'nia@elsewhere.test', email_verified: true })
  const again = await stack.complete(browser, await oidcLanding(stack, browser, 'nia'))
  t.equal(again.status, 200)
  t.equal(again.body.registered, undefined, 'not created again')
  t.equal((await stack.services.tokens.verifyAuthToken(String(again.body.auth)))?.accountId, account!.id, 'the same account')
  t.same((await stack.services.tokens.verifyAuthToken(String(again.body.auth)))?.amr, ['social'])
})

t.test('an OAuth 2.0 provider signs in with `id` and a verified address from its userinfo', async (t) => {
  const stack = await startSocialStack(t)
  stack.oauth2.users.set('ola', { id: 4242, email: 'ola@example.test', email_verified: true, given_name: 'Ola' })
  const browser = new TestBrowser()
  const url = new URL(await stack.socialUrl(browser, OAUTH2_PROVIDER))
  t.equal(url.searchParams.get('code_challenge_method'), 'S256')
  t.notOk(url.searchParams.has('nonce'), 'no ID token, no nonce')
  const answer = await stack.complete(browser, await stack.oauth2Leg(browser, url.href, 'ola'))
  t.equal(answer.status, 200)
  t.equal(answer.body.registered, true)
  const account = await stack.services.store.findAccountByEmail('ola@example.test')
  t.equal(account?.firstName, 'Ola', 'the name the provider gave')
  t.equal((await stack.services.store.socialLinks.find(OAUTH2_PROVIDER, '4242'))?.accountId, account!.id)
})

t.test('an unverified account with the address is claimed: its password and sessions are gone, its owner told', async (t) => {
  const stack = await startSocialStack(t)
  const squatter = new TestBrowser()
  const id = await stack.register(squatter, 'pia@example.test')
  const squatterAuth = await stack.signIn(squatter, 'pia@example.test')
  stack.oidc.users.set('pia', { email: 'pia@example.test', email_verified: true })
  const browser = new TestBrowser()
  const answer = await stack.complete(browser, await oidcLanding(stack, browser, 'pia'))
  t.equal(answer.status, 200)
  t.equal(answer.body.registered, undefined, 'not created: claimed')
  const account = await stack.services.store.findAccountById(id)
  t.equal(account?.passwordHash, null, 'the password set before is gone')
  t.ok(account?.emailVerifiedAt)
  t.equal(await stack.services.tokens.isSessionLive((await stack.services.tokens.verifyAuthToken(squatterAuth))!.sessionId), false, 'the squatter\'s session ended')
  t.equal((await stack.services.store.socialLinks.find(OIDC_PROVIDER, 'pia'))?.accountId, id, 'linked')
  const claimed = await waitForEmail(stack.dataDir, 1, 'claimed')
  t.match(claimed.decoded, /now signed in with GitLab/, 'the notice names the provider')
})

t.test('a verified account with the address is refused (409), and nothing is linked', async (t) => {
  const stack = await startSocialStack(t)
  const owner = new TestBrowser()
  const id = await stack.register(owner, 'vera@example.test')
  await stack.services.store.markEmailVerified(id, Date.now())
  stack.oidc.users.set('mallory', { email: 'vera@example.test', email_verified: true })
  const browser = new TestBrowser()
  const answer = await stack.complete(browser, await oidcLanding(stack, browser, 'mallory'))
  t.equal(answer.status, 409)
  t.match(answer.body.error, /An account with this address exists\. Log in to it, then connect GitLab from your account\./)
  t.notOk(answer.body.auth, 'no session')
  t.same(await stack.services.store.socialLinks.list(id), [], 'not linked')
  t.not((await stack.services.store.findAccountById(id))?.passwordHash, null, 'the password stays')
})

t.test('an address the provider has not verified, or none, is refused with a clear message and no id', async (t) => {
  const stack = await startSocialStack(t)
  stack.oidc.users.set('una', { email: 'una@example.test', email_verified: false })
  stack.oauth2.users.set('nob', { sub: 'nob' })
  const browser = new TestBrowser()
  const unverified = await oidcLanding(stack, browser, 'una')
  t.notOk(unverified.params.has('id'))
  t.match(unverified.params.get('error'), /GitLab has not verified your email address/)
  t.match(stack.lastRefusal(), /not verified/)
  const none = await stack.oauth2Leg(browser, await stack.socialUrl(browser, OAUTH2_PROVIDER, { source: 'register' }), 'nob')
  t.match(none.params.get('error'), /Forge did not share a valid email address/)
  t.equal(none.params.get('view'), 'register', 'back on the view it started from')
  t.equal(await stack.services.store.findAccountByEmail('una@example.test'), null)
})

t.test('the provider\'s error comes back as a clear message and no session', async (t) => {
  const stack = await startSocialStack(t)
  const browser = new TestBrowser()
  const landing = await stack.returnToPage(browser, await stack.oidc.cancel(browser, await stack.socialUrl(browser, OIDC_PROVIDER)))
  t.notOk(landing.params.has('id'))
  t.match(landing.params.get('error'), /GitLab did not sign you in/)
  t.match(stack.lastRefusal(), /the provider answered access_denied/)
})

t.test('attacks on the return: a replayed state, a reused code, no cookie, another browser\'s cookie', async (t) => {
  const stack = await startSocialStack(t)
  stack.oauth2.users.set('ola', { sub: 'ola', email: 'ola@example.test', email_verified: true })
  const victim = new TestBrowser()
  const attacker = new TestBrowser()

  // The attacker's own callback, fed to the victim's browser (login CSRF): it has no cookie for it.
  const attackerCallback = await stack.oauth2.approve(await stack.socialUrl(attacker, OAUTH2_PROVIDER), 'ola')
  const forced = await stack.returnToPage(victim, attackerCallback)
  t.notOk(forced.params.has('id'), 'no id without the cookie')
  t.match(forced.params.get('error'), /not started in this browser/)
  t.equal(stack.lastRefusal(), 'no state cookie')

  // With another browser's cookie (the victim started one of her own): still not hers.
  await stack.socialUrl(victim, OAUTH2_PROVIDER)
  const crossed = await stack.returnToPage(victim, attackerCallback)
  t.notOk(crossed.params.has('id'))
  t.equal(stack.lastRefusal(), 'state cookie of another browser')

  // The rightful browser, then the same callback again: the state is spent, and so is the code.
  const exchangesBefore = stack.oauth2.exchanges.count
  const fresh = await stack.oauth2.approve(await stack.socialUrl(attacker, OAUTH2_PROVIDER), 'ola')
  const landing = await stack.returnToPage(attacker, fresh)
  t.ok(landing.params.has('id'))
  const replayed = await stack.returnToPage(attacker, fresh)
  t.notOk(replayed.params.has('id'), 'a state works once')
  t.equal(stack.lastRefusal(), 'unknown, used or expired transaction')
  t.equal(stack.oauth2.exchanges.count, exchangesBefore + 1, 'the replay never reached the token endpoint')

  // A code reused under a new state (the stand-in refuses a spent code): the answer does not verify.
  const started = new URL(await stack.socialUrl(attacker, OAUTH2_PROVIDER))
  const reused = new URL(fresh)
  reused.searchParams.set('state', started.searchParams.get('state')!)
  const reusedLanding = await stack.returnToPage(attacker, reused.href)
  t.notOk(reusedLanding.params.has('id'))
  t.match(reusedLanding.params.get('error'), /could not be verified/)

  // The page's id: only in the browser it was issued to (a try from another spends it, as SSO's), once.
  const stolen = await stack.complete(victim, landing)
  t.equal(stolen.status, 401, 'another browser cannot complete with it')
  t.notOk(stolen.body.auth)
  const other = await stack.returnToPage(attacker, await stack.oauth2.approve(await stack.socialUrl(attacker, OAUTH2_PROVIDER), 'ola'))
  t.equal((await stack.complete(attacker, other)).status, 200)
  const again = await stack.complete(attacker, other)
  t.equal(again.status, 401, 'an id works once')
  t.notOk(again.body.auth)
})

t.test('an OpenID Connect answer naming another issuer (RFC 9207 iss, a mix-up) is refused', async (t) => {
  const stack = await startSocialStack(t)
  stack.oidc.users.set('isa', { email: 'isa@example.test', email_verified: true })
  const browser = new TestBrowser()
  const answer = new URL(await stack.oidc.signIn(browser, await stack.socialUrl(browser, OIDC_PROVIDER), 'isa'))
  answer.searchParams.set('iss', 'https://github.com')
  const landing = await stack.returnToPage(browser, answer.href)
  t.notOk(landing.params.has('id'))
  t.match(landing.params.get('error'), /answer of GitLab could not be verified/)
})

t.test('a malformed userinfo answer is refused, and the log never quotes it (it may hold the visitor\'s address)', async (t) => {
  const stack = await startSocialStack(t)
  // A short body is quoted whole by JSON.parse's error: here, the address alone.
  stack.oauth2.rawUserinfo.set('rae', '<rae@ex.io>')
  const browser = new TestBrowser()
  const landing = await stack.oauth2Leg(browser, await stack.socialUrl(browser, OAUTH2_PROVIDER), 'rae')
  t.notOk(landing.params.has('id'))
  t.match(landing.params.get('error'), /could not be verified/)
  t.notMatch(stack.logs.join('\n'), /rae@ex\.io/, 'the body is in no log line')
})

t.test('a request that only knows a victim\'s state (no cookie, or another browser\'s) spends nothing: the victim still signs in', async (t) => {
  const stack = await startSocialStack(t)
  stack.oauth2.users.set('uma', { sub: 'uma', email: 'uma@example.test', email_verified: true })
  const victim = new TestBrowser()
  const stranger = new TestBrowser()
  await stack.socialUrl(stranger, OAUTH2_PROVIDER)
  const answer = await stack.oauth2.approve(await stack.socialUrl(victim, OAUTH2_PROVIDER), 'uma')
  const exchangesBefore = stack.oauth2.exchanges.count
  for (const browser of [new TestBrowser(), stranger]) {
    // The victim's state, with a made-up code: as a leaked or guessed state would be used to cancel her sign-in.
    const forged = new URL(answer)
    forged.searchParams.set('code', 'made-up')
    t.notOk((await stack.returnToPage(browser, forged.href)).params.has('id'))
  }
  t.equal(stack.oauth2.exchanges.count, exchangesBefore, 'nothing was exchanged')
  const landing = await stack.returnToPage(victim, answer)
  t.ok(landing.params.has('id'), 'the victim\'s sign-in was still there')
  t.equal((await stack.complete(victim, landing)).status, 200)
})

t.test('a return for a provider no longer configured is refused', async (t) => {
  const stack = await startSocialStack(t)
  stack.oidc.users.set('nia', { email: 'nia@example.test', email_verified: true })
  const browser = new TestBrowser()
  const url = await stack.socialUrl(browser, OIDC_PROVIDER)
  // A transaction of a connection the operator has since removed, as a restart without it leaves it.
  const state = new URL(url).searchParams.get('state')!
  const transaction = await stack.services.store.takeSsoTransaction(state, Date.now())
  await stack.services.store.insertSsoTransaction({ ...transaction!, connectionDomain: 'retired' })
  // Its answer, on the retired connection's own address (as its provider was told): no connection answers there.
  const answer = new URL(await stack.oidc.signIn(browser, url, 'nia'))
  answer.pathname = answer.pathname.replace(/\/gitlab$/, '/retired')
  const landing = await stack.returnToPage(browser, answer.href)
  t.notOk(landing.params.has('id'))
  t.match(landing.params.get('error'), /provider is not configured/)
  t.equal(stack.lastRefusal(), 'no such connection answers on the callback')
  // On the address of the connection still configured, it is another connection's sign-in.
  const elsewhere = new URL(await stack.oidc.signIn(browser, await stack.socialUrl(browser, OIDC_PROVIDER), 'nia'))
  const retired = await stack.services.store.takeSsoTransaction(elsewhere.searchParams.get('state')!, Date.now())
  await stack.services.store.insertSsoTransaction({ ...retired!, connectionDomain: 'retired' })
  t.notOk((await stack.returnToPage(browser, elsewhere.href)).params.has('id'))
  t.equal(stack.lastRefusal(), 'an answer for another connection\'s sign-in')
})

t.test('the start refuses an unknown provider and a malformed body (400), and an unreachable one (502)', async (t) => {
  const stack = await startSocialStack(t, {
    env: { SOCIAL_CONNECTIONS: JSON.stringify([{ type: 'oidc', id: 'down', name: 'Down', issuer: 'http://127.0.0.1:9', client_id: 'c', client_secret: 's' }]) }
  })
  const browser = new TestBrowser()
  const unknown = await stack.post(browser, 'auth/login/social', { provider: 'myspace', source: 'login' })
  t.equal(unknown.status, 400)
  t.match(unknown.body.error, /not configured/)
  t.equal((await stack.post(browser, 'auth/login/social', { provider: 'down', source: 'elsewhere' })).status, 400)
  t.equal((await stack.post(browser, 'auth/login/social', ['down'])).status, 400)
  const down = await stack.post(browser, 'auth/login/social', { provider: 'down', source: 'login' })
  t.equal(down.status, 502)
  t.match(down.body.error, /Down could not be reached/)
  t.notOk(down.setCookie.some((cookie) => cookie.startsWith('social_state=')), 'no cookie for a start that failed')
  const madeUp = await stack.post(browser, 'v2/auth/login', { login_method: 'SOCIAL', provider: 'down', id: 'x'.repeat(43) })
  t.equal(madeUp.status, 401)
  t.equal((await stack.post(browser, 'v2/auth/login', { login_method: 'SOCIAL', provider: 'down', id: 'short' })).status, 400)
})

t.test('the second factor applies: an organisation that requires one is asked for it before any token', async (t) => {
  const stack = await startSocialStack(t)
  stack.oidc.users.set('sam', { email: 'sam@example.test', email_verified: true })
  const browser = new TestBrowser()
  t.equal((await stack.complete(browser, await oidcLanding(stack, browser, 'sam'))).status, 200)
  const account = await stack.services.store.findAccountByEmail('sam@example.test')
  await stack.services.store.addMembership(account!.id, 'acme')
  await stack.services.store.setOrganizationRequiresSecondFactor('acme', true)
  const answer = await stack.complete(browser, await oidcLanding(stack, browser, 'sam'), { insecure_allowed_orgs: ['acme'] })
  t.equal(answer.status, 200)
  t.notOk(answer.body.auth, 'no token before the second factor')
  t.ok(Object.keys(answer.body).some((key) => key.startsWith('second_factor')), `the second factor's step (${Object.keys(answer.body).join(', ')})`)
})

t.test('an address whose domain must sign in with single sign-on (a required SSO connection) is refused, and no account is made for it', async (t) => {
  const stack = await startSocialStack(t, {
    env: { SSO_CONNECTIONS: JSON.stringify([{ domain: 'only-sso.test', type: 'oidc', issuer: 'https://idp.only-sso.test', client_id: 'c', client_secret: 's', required: true }]) }
  })
  stack.oidc.users.set('ann', { email: 'ann@only-sso.test', email_verified: true })
  const browser = new TestBrowser()
  const refused = await stack.complete(browser, await oidcLanding(stack, browser, 'ann'))
  t.equal(refused.status, 403)
  t.equal(refused.body.sso_required, true)
  t.match(refused.body.error, /single sign-on/)
  t.equal(refused.body.auth, undefined, 'no session')
  t.equal(await stack.services.store.findAccountByEmail('ann@only-sso.test'), null, 'no account made')
  t.ok(stack.auditEvents().some((entry) => entry.audit === 'sso.required-refused'))

  stack.oidc.users.set('bo', { email: 'bo@example.test', email_verified: true })
  const other = new TestBrowser()
  t.equal((await stack.complete(other, await oidcLanding(stack, other, 'bo'))).status, 200, 'another domain signs in')
})
