import type { BrowserContext, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { browserSkip, launchBrowser, openPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { startOidcProvider } from '../../fixtures/sso/sso-oidc-provider.js'

/*
 * SSO found by the address (SSO_DISCOVERY, docs/sso.md "Found by the address")
 * in real Chromium against the built server: a visitor whose address's domain
 * has a connection is offered "Continue with single sign-on" in place of the
 * password, on the login and register views, and reaches the identity
 * provider without ever opening the SSO modal; a domain without a connection
 * keeps the password; a required domain offers nothing else and its password
 * is refused however it is sent. The provider runs on 127.0.0.1, the page on
 * localhost.
 */

const CONTINUE = english('ssoDiscovery.continue')
const REQUIRED = 'Your organization signs in with single sign-on. Continue with single sign-on.'
const DISCOVER = '/accounts/auth/sso/discover'

/**
 * A fresh page that answers Google's script and the OIDC provider's web font
 * (there is no network here) and favicon requests, and notes whether a dialog
 * (the SSO modal) ever opened on the page (`window.dialogOpened`).
 */
async function openQuietPage (t: Test): Promise<Awaited<ReturnType<typeof openPage>>> {
  const opened = await openPage(t)
  await opened.context.route('https://accounts.google.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }))
  await opened.context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
  await opened.context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }))
  await opened.page.addInitScript(() => {
    new MutationObserver(() => {
      if (document.querySelector('[role="dialog"]') !== null) (window as unknown as { dialogOpened: boolean }).dialogOpened = true
    }).observe(document, { childList: true, subtree: true })
  })
  return opened
}

const dialogOpened = (page: Page): Promise<boolean> => page.evaluate(() => (window as unknown as { dialogOpened?: boolean }).dialogOpened === true)

/** Signs `login` in on the OIDC provider's development pages (any password), consenting. */
async function signInAtProvider (page: Page, issuer: string, login: string): Promise<void> {
  await page.waitForURL(`${issuer}/interaction/**`)
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill('any password')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
}

const hasSession = async (context: BrowserContext, base: string): Promise<boolean> =>
  (await context.cookies(base)).some((cookie) => cookie.name === 'auth' || cookie.name === 'refresh')

t.test('SSO found by the address, in real Chromium against the built server', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  let base = ''
  const oidc = await startOidcProvider(t, { redirectUri: () => `${base}/accounts/auth/sso/oidc/callback` })
  oidc.users.set('alice', { email: 'alice@oidc.example.com', email_verified: true })
  oidc.users.set('bea', { email: 'bea@oidc.example.com', email_verified: true })
  oidc.users.set('kai', { email: 'kai@oidc.example.com', email_verified: true })
  const connection = { type: 'oidc', issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret }
  const server = await startBuiltServer(t, {
    SSO_DISCOVERY: 'true',
    SSO_CONNECTIONS: JSON.stringify([{ domain: 'oidc.example.com', ...connection }, { domain: 'only-sso.example.com', required: true, ...connection }]),
    // A password sign-in ends at its redirect (the passkey and second-factor offers are other suites' subjects).
    PASSKEYS: 'false',
    SECOND_FACTOR: 'false',
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1'
  })
  base = server.base
  const target = `${product}/dashboard`
  await registerAccount(base, 'kim@example.test', 'a password of her own')

  await t.test('login: an address of the connected domain offers single sign-on in place of the password, and lands signed in on the redirect target', async (t) => {
    const { page, context, problems } = await openQuietPage(t)
    const asked: string[] = []
    page.on('request', (request) => { if (request.url().endsWith(DISCOVER)) asked.push(request.postData() ?? '') })
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await waitForHydration(page)
    await page.getByLabel('Email', { exact: true }).fill('alice@oidc.example.com')
    const offer = page.getByRole('button', { name: CONTINUE })
    await offer.waitFor()
    t.equal(await page.getByLabel('Password', { exact: true }).count(), 0, 'no password field')
    t.equal(await page.getByRole('button', { name: 'Login', exact: true }).count(), 0, 'no Login button')
    t.ok(await page.getByText(english('ssoDiscovery.note')).isVisible(), 'a line says why')
    t.ok(await page.getByRole('button', { name: 'Login with Custom SSO provider' }).isVisible(), 'the other methods stay for a domain that does not require it')
    t.same(asked, ['{"email":"alice@oidc.example.com"}'], 'one question, for the whole address')
    t.notOk(await dialogOpened(page), 'the SSO modal never opened')
    const started = Date.now()
    await offer.click()
    await signInAtProvider(page, oidc.issuer, 'alice')
    await page.waitForURL(target)
    t.comment(`from "Continue with single sign-on" to the product: ${Date.now() - started} ms`)
    t.equal(await page.locator('h1').textContent(), 'Welcome to the product')
    t.ok(await hasSession(context, base), 'signed in')
    t.same(problems, [])
  })

  await t.test('register: the same offer on the register view creates the account at the identity provider\'s word', async (t) => {
    const { page, problems } = await openQuietPage(t)
    await page.goto(`${base}/?view=register`)
    await waitForHydration(page)
    await page.getByLabel('Company Email', { exact: true }).fill('bea@oidc.example.com')
    await page.getByRole('button', { name: CONTINUE }).waitFor()
    t.equal(await page.getByLabel('Password', { exact: true }).count(), 0, 'no password field')
    t.equal(await page.getByLabel('Confirm Password', { exact: true }).count(), 0, 'no confirmation field')
    t.notOk(await dialogOpened(page), 'the SSO modal never opened')
    await page.getByRole('button', { name: CONTINUE }).click()
    await signInAtProvider(page, oidc.issuer, 'bea')
    await page.getByRole('status').filter({ hasText: 'account has been created' }).waitFor()
    t.equal(await page.getByLabel('Email', { exact: true }).inputValue(), 'bea@oidc.example.com', 'the registered address is kept')
    t.same(problems, [])
  })

  await t.test('an address of a domain without a connection keeps the password form, and its password signs in as before', async (t) => {
    const { page, context, problems } = await openQuietPage(t)
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await waitForHydration(page)
    const answered = page.waitForResponse((response) => response.url().endsWith(DISCOVER))
    await page.getByLabel('Email', { exact: true }).fill('kim@example.test')
    t.same(await (await answered).json(), { sso: false }, 'the domain has no connection')
    t.equal(await page.getByRole('button', { name: CONTINUE }).count(), 0, 'nothing offered')
    await page.getByLabel('Password', { exact: true }).fill('a password of her own')
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.waitForURL(target)
    t.ok(await hasSession(context, base), 'signed in')
    t.same(problems, [])
  })

  await t.test('a required domain offers single sign-on and nothing else', async (t) => {
    const { page, problems } = await openQuietPage(t)
    await page.goto(base)
    await waitForHydration(page)
    const otherWaysIn = page.locator('.methods button, .methods a')
    t.ok(await otherWaysIn.count() > 0, 'before: other ways in below the form')
    await page.getByLabel('Email', { exact: true }).fill('carol@only-sso.example.com')
    await page.getByRole('button', { name: CONTINUE }).waitFor()
    t.equal(await page.getByLabel('Password', { exact: true }).count(), 0, 'no password field')
    t.equal(await otherWaysIn.count(), 0, 'no other way in: no SSO modal button, Google, passkey or emailed code')
    t.same(await page.locator('main form button').allTextContents(), [CONTINUE], 'the form\'s one button')
    await page.getByLabel('Email', { exact: true }).fill('carol@example.test')
    await page.getByLabel('Password', { exact: true }).waitFor()
    t.ok(await otherWaysIn.count() > 0, 'another address brings the password and the other ways in back')
    t.same(problems, [])
  })

  await t.test('a required domain\'s password typed before discovery answers is refused with its message, and no session', async (t) => {
    const { page, context, problems } = await openQuietPage(t)
    // Discovery answered slowly: the password is typed and sent while the form still asks for one.
    let release = (): void => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    await page.route(`${base}${DISCOVER}`, async (route) => { await held; await route.continue() })
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await waitForHydration(page)
    await page.getByLabel('Email', { exact: true }).fill('carol@only-sso.example.com')
    await page.getByLabel('Password', { exact: true }).fill('a password of her own')
    const login = page.waitForResponse((response) => response.url().endsWith('/accounts/v2/login'))
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    t.equal((await login).status(), 403, 'the service refused the password')
    await page.getByRole('alert').filter({ hasText: REQUIRED }).waitFor()
    t.pass('the refusal says to continue with single sign-on')
    t.notOk(await hasSession(context, base), 'no session')
    release()
    await page.getByRole('button', { name: CONTINUE }).waitFor()
    t.pass('once discovery answers, single sign-on is offered')
    t.equal(await page.getByLabel('Password', { exact: true }).count(), 0, 'and the password field is gone')
    t.same(unexpectedProblems(problems, [403]), [], 'only the refused login')
  })

  await t.test('a required domain\'s password posted by the form without scripts is refused with its message, and no session', async (t) => {
    const browser = await launchBrowser(t)
    const context = await browser.newContext({ javaScriptEnabled: false })
    t.teardown(() => context.close())
    await context.route('https://accounts.google.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }))
    const page = await context.newPage()
    await page.goto(base)
    const form = page.locator('form').filter({ has: page.locator('input[name="form"][value="login"]') })
    await form.getByLabel('Email', { exact: true }).fill('carol@only-sso.example.com')
    await form.getByLabel('Password', { exact: true }).fill('a password of her own')
    await form.getByRole('button', { name: 'Login', exact: true }).click()
    await page.getByRole('alert').filter({ hasText: REQUIRED }).waitFor()
    t.pass('the page shows the refusal')
    t.notOk(await hasSession(context, base), 'no session')
  })

  await t.test('by keyboard alone: type the address, Tab reaches the offer, Enter starts single sign-on', async (t) => {
    const { page, context, problems } = await openQuietPage(t)
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await waitForHydration(page)
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'email', 'the first stop is the email field')
    await page.keyboard.type('kai@oidc.example.com')
    const offer = page.getByRole('button', { name: CONTINUE })
    await offer.waitFor()
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'email', 'the offer leaves the focus where the visitor types')
    await page.keyboard.press('Tab')
    t.ok(await offer.evaluate((button) => button === document.activeElement), 'Tab reaches "Continue with single sign-on"')
    await page.keyboard.press('Enter')
    await signInAtProvider(page, oidc.issuer, 'kai')
    await page.waitForURL(target)
    t.ok(await hasSession(context, base), 'signed in')
    t.same(problems, [])
  })

  await t.test('by keyboard alone: a visitor already in the password field when the offer replaces it finds the focus on the offer', async (t) => {
    const { page, problems } = await openQuietPage(t)
    let release = (): void => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    await page.route(`${base}${DISCOVER}`, async (route) => { await held; await route.continue() })
    await page.goto(base)
    await waitForHydration(page)
    await page.keyboard.press('Tab')
    await page.keyboard.type('alice@oidc.example.com')
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'password', 'in the password field')
    release()
    const offer = page.getByRole('button', { name: CONTINUE })
    await offer.waitFor()
    await page.waitForFunction((label) => document.activeElement?.textContent === label, CONTINUE)
    t.pass('the focus moved to the offer, not to the document')
    await page.keyboard.press('Shift+Tab')
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'email', 'Shift+Tab goes back to the address')
    t.same(problems, [])
  })
})
