import type { BrowserContext, Page } from 'playwright-core'
import t from 'tap'
import { english } from '../fixtures/messages.js'
import { browserSkip, launchBrowserResolvingToLoopback } from '../fixtures/browser.js'
import { startBuiltServer } from '../fixtures/built-server.js'
import { startUpstream } from '../fixtures/edge.js'
import { opensslSkip } from '../fixtures/sso-certificates.js'
import { startTlsFront } from '../fixtures/tls-front.js'

/**
 * Where the page keeps the tokens and where it goes next, in real Chromium,
 * served over https under real names (every name resolves to the built
 * server on loopback, behind a TLS front): the attacks of issue 25, findings
 * 4 and 9.
 */

/** Longer than the 4096 bytes a browser keeps in one cookie. */
const OVERSIZED_TOKEN_BYTES = 5 * 1024

async function signIn (page: Page, url: string): Promise<void> {
  await page.goto(url)
  await page.getByLabel('Email', { exact: true }).fill('ada@example.test')
  await page.getByLabel('Password', { exact: true }).fill('correct horse battery')
  await page.getByRole('button', { name: 'Login', exact: true }).click()
}

async function authCookieDomain (context: BrowserContext): Promise<string | undefined> {
  return (await context.cookies()).find((cookie) => cookie.name === 'auth')?.domain
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
