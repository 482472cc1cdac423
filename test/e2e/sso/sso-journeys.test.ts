import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { jsonAnswer, startUpstream } from '../../fixtures/servers/edge.js'
import { makeKeyAndCertificate, opensslSkip } from '../../fixtures/sso/sso-certificates.js'
import { startOidcProvider } from '../../fixtures/sso/sso-oidc-provider.js'
import { startSamlIdp } from '../../fixtures/sso/sso-saml-idp.js'

// The "done": a visitor whose email domain has a connection clicks
// the SSO button, signs in at the identity provider and lands signed in on
// the redirect target, in real Chromium, against the built server (page,
// edge and forked reference service), for OIDC and for SAML. The providers
// run on 127.0.0.1 and the page on localhost: different sites, so the SAML
// provider's post to the ACS is cross-site, as in production.

async function clickSso (page: Page, email: string, view: 'login' | 'register'): Promise<void> {
  await page.getByLabel(view === 'login' ? 'Email' : 'Company Email', { exact: true }).fill(email)
  await page.getByRole('button', { name: view === 'login' ? 'Login with Custom SSO provider' : 'Sign up with Custom SSO provider' }).click()
  const dialog = page.getByRole('dialog', { name: 'SSO Login' })
  await dialog.getByRole('button', { name: view === 'login' ? 'Login' : 'Sign up', exact: true }).click()
}

/** Signs in on the test IdP's own page (any address is accepted there). */
async function signInAtSamlIdp (page: Page, entryPoint: string, email: string): Promise<void> {
  await page.waitForURL(`${entryPoint}?**`)
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/**
 * A fresh page that answers Google's script and the OIDC provider's web font
 * (there is no network here) and favicon requests, so that every problem it
 * records is real.
 */
async function openQuietPage (t: Test): Promise<Awaited<ReturnType<typeof openPage>>> {
  const opened = await openPage(t)
  await opened.context.route('https://accounts.google.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }))
  await opened.context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
  await opened.context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }))
  return opened
}

t.test('single sign-on journeys in real Chromium against the built server', { skip: browserSkip || opensslSkip }, async (t) => {
  const keysDir = mkdtempSync(join(tmpdir(), 'threshold-sso-e2e-'))
  t.teardown(() => rmSync(keysDir, { recursive: true, force: true }))
  const product = await startProductApp(t)
  let base = ''
  const oidc = await startOidcProvider(t, { redirectUri: () => `${base}/accounts/auth/sso/oidc/callback` })
  oidc.users.set('alice', { email: 'alice@oidc.example.com', email_verified: true })
  const saml = await startSamlIdp(t, { keys: makeKeyAndCertificate(keysDir, 'idp'), wantSignedRequests: true })
  const sp = makeKeyAndCertificate(keysDir, 'sp')

  const server = await startBuiltServer(t, {
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
    SSO_CONNECTIONS: JSON.stringify([
      { domain: 'oidc.example.com', type: 'oidc', issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret },
      {
        domain: 'saml.example.com',
        type: 'saml',
        entry_point: saml.entryPoint,
        idp_cert: saml.certificate,
        idp_issuer: saml.entityId,
        sp_entity_id: 'https://threshold.test/saml/sp',
        sp_private_key: sp.privateKey,
        sp_cert: sp.certificate
      }
    ])
  })
  base = server.base
  saml.trustServiceProvider(await (await fetch(`${base}/accounts/auth/sso/saml/metadata`)).text())
  const target = `${product}/dashboard`

  await t.test('OIDC: the SSO button, the provider\'s sign-in, and the visitor lands signed in on the redirect target', async (t) => {
    const { page, context, problems } = await openQuietPage(t)
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    const started = Date.now()
    await clickSso(page, 'alice@oidc.example.com', 'login')
    await page.waitForURL(`${oidc.issuer}/interaction/**`)
    await page.locator('input[name="login"]').fill('alice')
    await page.locator('input[name="password"]').fill('any password')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(target)
    t.comment(`from the SSO button to the product: ${Date.now() - started} ms`)
    t.equal(await page.locator('h1').textContent(), 'Welcome to the product')
    const cookies = await context.cookies(base)
    t.ok(cookies.some((cookie) => cookie.name === 'auth'), 'the auth cookie is set')
    t.ok(cookies.some((cookie) => cookie.name === 'refresh'), 'the refresh cookie is set')
    t.notOk(cookies.some((cookie) => cookie.name === 'sso_state'), 'the state cookie is gone')
    t.same(problems, [])
  })

  await t.test('SAML: sign up from the register view, then log in, landing signed in on the redirect target', async (t) => {
    const { page, context, problems } = await openQuietPage(t)
    await page.goto(`${base}/?view=register`)
    await clickSso(page, 'bob@saml.example.com', 'register')
    await signInAtSamlIdp(page, saml.entryPoint, 'bob@saml.example.com')
    await page.getByRole('status').filter({ hasText: 'account has been created' }).waitFor()
    t.equal(await page.getByLabel('Email', { exact: true }).inputValue(), 'bob@saml.example.com', 'the registered email is kept')
    t.equal(saml.requests.at(-1)?.signatureChecked, true, 'the IdP checked the signed AuthnRequest')

    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await clickSso(page, 'bob@saml.example.com', 'login')
    await signInAtSamlIdp(page, saml.entryPoint, 'bob@saml.example.com')
    await page.waitForURL(target)
    t.equal(await page.locator('h1').textContent(), 'Welcome to the product')
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'the auth cookie is set')
    t.same(problems, [])
  })

  await t.test('a return link opened in another browser signs nobody in', async (t) => {
    const victim = await openQuietPage(t)
    // The attacker's own SAML sign-in, back on the page, its completion held back.
    const attacker = await openQuietPage(t)
    await attacker.page.route(`${base}/accounts/v2/auth/login`, (route) => route.abort())
    await attacker.page.goto(base)
    await clickSso(attacker.page, 'mallory@saml.example.com', 'login')
    await signInAtSamlIdp(attacker.page, saml.entryPoint, 'mallory@saml.example.com')
    // Taken as it arrives: the page then takes the id out of its address, and
    // reading page.url() afterwards raced with that on a busy machine.
    let link = ''
    await attacker.page.waitForURL((url) => {
      if (url.origin === base && url.searchParams.has('id')) link = url.href
      return link !== ''
    })
    t.match(link, /[?&]id=/, 'the attacker has a return link')

    await victim.page.goto(link)
    await victim.page.getByRole('alert').filter({ hasText: /opened in another browser/ }).waitFor()
    t.notOk((await victim.context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'the victim is not signed in')
  })
})

t.test('in front of a backend whose return carries only the documented parameters, the visitor still lands on the redirect target', { skip: browserSkip }, async (t) => {
  // The identity provider's leg, reduced to one redirect back to the page from another site (127.0.0.1).
  let base = ''
  const idp = await startUpstream(t, (_request, response) => {
    response.writeHead(302, { location: `${base}/?oidc=1&email=ada%40corp.test&id=one-time-id&login=1` })
    response.end()
  })
  const accounts = await startUpstream(t, (request, response) => {
    const path = request.url.split('?')[0]
    if (path === '/auth/login/sso') jsonAnswer(200, { sso_url: `${idp.url}/authorize` })(request, response)
    else if (path === '/v2/auth/login') jsonAnswer(200, { auth: 'eyJ.sso', refresh: 'sso-refresh' })(request, response)
    else jsonAnswer(404, { error: 'Not found.' })(request, response)
  })
  const product = await startProductApp(t)
  const server = await startBuiltServer(t, { ACCOUNTS_URL: accounts.url, EDGE_AUTH_URL: accounts.url, REDIRECT_ALLOWED_HOSTS: '127.0.0.1' })
  base = server.base
  const target = `${product}/dashboard`

  const { page, problems } = await openQuietPage(t)
  await page.goto(`${base}/?redirect=${encodeURIComponent(target)}&allowed_org=acme&resource_type=cluster&cluster_name=prod-eu`)
  await clickSso(page, 'ada@corp.test', 'login')
  await page.waitForURL(target)
  t.equal(await page.locator('h1').textContent(), 'Welcome to the product')
  t.equal(idp.requests.length, 1, 'the browser went through the identity provider')
  const completion = accounts.requests.find((request) => request.url === '/v2/auth/login')
  t.same(JSON.parse(completion?.body.toString('utf8') ?? 'null'), {
    email: 'ada@corp.test', login_method: 'OIDC', id: 'one-time-id', insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod-eu'
  }, 'the completion carried the context the visitor started with')
  t.same(problems, [])
})
