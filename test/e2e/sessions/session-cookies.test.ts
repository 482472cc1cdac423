import type { BrowserContext, Page } from 'playwright-core'
import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { browserSkip, launchBrowserResolvingToLoopback, openPage } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startUpstream } from '../../fixtures/servers/edge.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { opensslSkip } from '../../fixtures/sso/sso-certificates.js'
import { startTlsFront } from '../../fixtures/servers/tls-front.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/**
 * Where the page keeps the tokens and where it goes next, in real Chromium,
 * served over https under real names (every name resolves to the built
 * server on loopback, behind a TLS front), and what a script on the page
 * can read of them (docs/security.md, "The token cookies").
 */

/** Longer than the 4096 bytes a browser keeps in one cookie. */
const OVERSIZED_TOKEN_BYTES = 5 * 1024

async function signIn (page: Page, url: string): Promise<void> {
  await page.goto(url)
  await signInOnPage(page, 'ada@example.test', 'correct horse battery')
}

async function authCookieDomain (context: BrowserContext): Promise<string | undefined> {
  return (await context.cookies()).find((cookie) => cookie.name === 'auth')?.domain
}

/** The names of the cookies a script on the page reads. */
async function scriptCookieNames (page: Page): Promise<string[]> {
  return (await page.evaluate(() => document.cookie)).split('; ').filter(Boolean).map((pair) => pair.slice(0, pair.indexOf('='))).sort()
}

/** The token cookies the browser holds, by name: whether each is HttpOnly. */
async function heldTokenCookies (context: BrowserContext): Promise<Record<string, boolean>> {
  return Object.fromEntries((await context.cookies()).filter((cookie) => cookie.name === 'auth' || cookie.name === 'refresh')
    .map((cookie) => [cookie.name, cookie.httpOnly]))
}

t.test('the page keeps its tokens and its redirects within its own registrable domain', { skip: browserSkip || opensslSkip }, async (t) => {
  let tokenBytes = 20
  const accounts = await startUpstream(t, (_request, response) => {
    const body = JSON.stringify({ auth: `eyJ.${'a'.repeat(tokenBytes)}`, refresh: 'refresh-token' })
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    response.end(body)
  })
  const server = await startBuiltServer(t, {
    ACCOUNTS_URL: accounts.url,
    EDGE_AUTH_URL: accounts.url,
    // Every name these cases open; any other is refused (421) before the page.
    ALLOWED_HOSTS: 'example.co.uk,shop.example.co.uk,signin.example.co.uk,app.example.co.uk,demo.herokuapp.com,api.demo.herokuapp.com,signin.example.test'
  })
  const port = await startTlsFront(t, server.port)
  const browser = await launchBrowserResolvingToLoopback(t)
  const at = (host: string, path = '/'): string => `https://${host}:${port}${path}`

  async function freshPage (t: import('tap').Test): Promise<{ context: BrowserContext, page: Page }> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true })
    t.teardown(() => context.close())
    return { context, page: await context.newPage() }
  }

  const cases: Array<[string, string, string, string, string]> = [
    // what, page host, redirect, where the browser lands, the auth cookie's domain
    ['a page at example.co.uk refuses another registrant under co.uk', 'example.co.uk', 'https://evil-shop.co.uk/', at('example.co.uk'), '.example.co.uk'],
    ['a page at example.co.uk follows its own subdomain', 'example.co.uk', at('shop.example.co.uk', '/cart'), at('shop.example.co.uk', '/cart'), '.example.co.uk'],
    ['a page at signin.example.co.uk follows its sibling', 'signin.example.co.uk', at('app.example.co.uk', '/'), at('app.example.co.uk', '/'), '.example.co.uk'],
    ['a page at demo.herokuapp.com refuses another Heroku app', 'demo.herokuapp.com', 'https://evil-app.herokuapp.com/', at('demo.herokuapp.com'), '.demo.herokuapp.com'],
    ['a page at demo.herokuapp.com follows its own subdomain', 'demo.herokuapp.com', at('api.demo.herokuapp.com', '/'), at('api.demo.herokuapp.com', '/'), '.demo.herokuapp.com']
  ]
  for (const [what, host, redirect, landing, cookieDomain] of cases) {
    await t.test(what, async (t) => {
      const { context, page } = await freshPage(t)
      await signIn(page, `${at(host)}?redirect=${encodeURIComponent(redirect)}`)
      await page.waitForURL(landing)
      t.equal(page.url(), landing)
      t.equal(await authCookieDomain(context), cookieDomain, 'the tokens are on the registrable domain, no public suffix')
      t.same(await heldTokenCookies(context), { auth: false, refresh: true }, 'the browser holds both; refresh HttpOnly')
      const tokenCookies = (await context.cookies()).filter((cookie) => cookie.name === 'auth' || cookie.name === 'refresh')
      t.ok(tokenCookies.every((cookie) => cookie.secure), 'both Secure over https, whatever the host')
      t.same(await scriptCookieNames(page), ['auth'], 'a script where the visitor lands reads auth, not refresh')
    })
  }

  await t.test('a token the browser drops (over 4 KB) is reported, and the page stays', async (t) => {
    tokenBytes = OVERSIZED_TOKEN_BYTES
    t.teardown(() => { tokenBytes = 20 })
    const { context, page } = await freshPage(t)
    const url = `${at('signin.example.test')}?redirect=%2Fapp`
    let navigated = false
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame() && frame.url() !== url) navigated = true })
    await signIn(page, url)
    await page.waitForFunction((text) => document.querySelector('[role=alert]')?.textContent === text, english('error.GENERIC'))
    t.equal(await authCookieDomain(context), undefined, 'Chromium kept no auth cookie')
    t.notOk(navigated, 'the page did not leave as if signed in')
    t.equal(page.url(), url)
    t.equal(await page.getByRole('button', { name: 'Login', exact: true }).isDisabled(), false, 'the visitor can try again')
  })
})

/** What a script injected into the page sends its author: the cookies it can read and every answer the page's calls get. */
const INJECTED_SCRIPT = (): void => {
  const send = (window as unknown as { exfiltrate: (text: string) => Promise<void> }).exfiltrate
  void send(`cookies: ${document.cookie}`)
  const pageFetch = window.fetch.bind(window)
  window.fetch = async (...args: Parameters<typeof fetch>) => {
    const response = await pageFetch(...args)
    void send(`answer: ${await response.clone().text()}`)
    return response
  }
}

t.test('the attack: a script injected into the page never reads the refresh token, in a cookie or in an answer, before a login or after it', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'false' })
  await registerAccount(server.base, 'victim@example.test')
  const { page, context } = await openPage(t)
  const loot: string[] = []
  await page.exposeFunction('exfiltrate', (text: string) => { loot.push(text) })
  await page.addInitScript(INJECTED_SCRIPT)

  const landing = `${server.base}/?landed=1`
  await page.goto(`${server.base}/?redirect=${encodeURIComponent(landing)}`)
  await signInOnPage(page, 'victim@example.test')
  await page.waitForURL(landing)
  const refreshAfterLogin = (await context.cookies()).find((cookie) => cookie.name === 'refresh')
  t.equal(refreshAfterLogin?.httpOnly, true, 'the browser holds the refresh token, HttpOnly')
  t.ok(loot.some((text) => text.startsWith('answer: ') && text.includes('"auth"')), 'the injected script saw the login\'s answer')

  // After the login, the script asks for a new pair with the cookie, as a product's page would refresh.
  const stolen = await page.evaluate(async () => {
    const answer = await fetch('/accounts/token/refresh', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    return { cookies: document.cookie, status: answer.status, body: await answer.text() }
  })
  t.equal(stolen.status, 200, 'the cookie still refreshes the session')
  t.same(Object.keys(JSON.parse(stolen.body) as object), ['auth'], 'the new auth token, and no refresh token')
  const refreshAfterRefresh = (await context.cookies()).find((cookie) => cookie.name === 'refresh')
  t.not(refreshAfterRefresh?.value, refreshAfterLogin?.value, 'the refresh cookie was rotated by the edge')
  t.equal(refreshAfterRefresh?.httpOnly, true)

  t.same(await scriptCookieNames(page), ['auth'], 'document.cookie shows auth, not refresh')
  for (const secret of [refreshAfterLogin!.value, refreshAfterRefresh!.value]) {
    t.notOk([...loot, stolen.cookies, stolen.body].some((text) => text.includes(secret)), 'no refresh token reached a script')
  }
})

t.test('with AUTH_COOKIE_HTTPONLY a script reads neither token cookie, and the visitor is signed in all the same', { skip: browserSkip }, async (t) => {
  const accounts = await startUpstream(t, (_request, response) => {
    const body = JSON.stringify({ auth: 'eyJ.server-side', refresh: 'refresh-server-side' })
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    response.end(body)
  })
  const server = await startBuiltServer(t, { ACCOUNTS_URL: accounts.url, EDGE_AUTH_URL: accounts.url, AUTH_COOKIE_HTTPONLY: 'true' })
  const { page, context } = await openPage(t)
  await signIn(page, `${server.base}/?redirect=%2F%3Flanded%3D1`)
  await page.waitForURL(`${server.base}/?landed=1`)
  t.same(await heldTokenCookies(context), { auth: true, refresh: true }, 'the browser holds both, HttpOnly')
  t.same(await scriptCookieNames(page), [], 'document.cookie shows neither')
})
