import { spawnSync } from 'node:child_process'
import t, { type Test } from 'tap'
import { runExampleToExit, startExampleProcess } from '../../fixtures/examples/example-process.js'
import { freeLoopbackPort, skipUnlessInstalled } from '../../fixtures/servers/local-services.js'
import { GOOD_PASSWORD, startReference } from '../../fixtures/servers/reference.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { TestBrowser } from '../../fixtures/sso/sso-browser.js'

/*
 * The OpenID Connect example product in Python (examples/oidc-product-python/),
 * run as its README runs it, on another origin than the page: the code flow
 * with PKCE through the embedded provider and the page as its sign-in screen,
 * the ID token verified, userinfo, sign-out at the provider and back-channel
 * logout, over real HTTP. Debian's python3-jwt is its one library (.ci/run
 * installs it).
 */

/** The first Python that has PyJWT: Debian's (/usr/bin/python3, where python3-jwt installs it) before one on PATH. */
function pythonWithJwt (): string | null {
  for (const python of ['/usr/bin/python3', 'python3']) {
    if (spawnSync(python, ['-c', 'import jwt, cryptography'], { stdio: 'ignore' }).status === 0) return python
  }
  return null
}
const PYTHON = pythonWithJwt()
const skip = skipUnlessInstalled('Python 3 with PyJWT and cryptography', PYTHON, 'python3-jwt python3-cryptography')

const APP = 'examples/oidc-product-python/app.py'
const LISTENING = /oidc product on (http:\/\/[\d.]+:\d+)/
const CLIENT_ID = 'notes'
const CLIENT_SECRET = 'a-secret-of-the-notes-app-32-characters-at-least'

/** The page (edge, embedded service and provider) on its PUBLIC_URL with the example registered as a client, and the example beside it. */
async function pageAndApp (t: Test, client: Record<string, unknown> = {}) {
  const [pagePort, appPort] = [await freeLoopbackPort(), await freeLoopbackPort()]
  const page = `http://127.0.0.1:${pagePort}`
  const app = `http://127.0.0.1:${appPort}`
  const clients = [{
    client_id: CLIENT_ID,
    client_name: 'Notes',
    redirect_uris: [`${app}/callback`],
    post_logout_redirect_uris: [`${app}/`],
    backchannel_logout_uri: `${app}/backchannel-logout`,
    client_secret: CLIENT_SECRET,
    first_party: true,
    ...client
  }]
  const reference = await startReference(t, { env: { PUBLIC_URL: page, OIDC_CLIENTS: JSON.stringify(clients) }, edgePort: pagePort })
  await startExampleProcess(t, PYTHON!, [APP], { ISSUER: page, CLIENT_ID, CLIENT_SECRET, APP_URL: app, PORT: String(appPort) }, LISTENING)
  return { page, app, reference }
}

const decoded = (text: string): string => text.replaceAll('&amp;', '&').replaceAll('&#38;', '&').replaceAll('&quot;', '"')

/** An input's value in a page, by its name, whatever the order of its attributes. */
function fieldOf (html: string, name: string): string | undefined {
  for (const input of html.match(/<input\b[^>]*>/g) ?? []) {
    if (new RegExp(`\\bname="${name}"`).test(input)) return decoded(/\bvalue="([^"]*)"/.exec(input)?.[1] ?? '')
  }
  return undefined
}

/** Signs `email` in through the example: its /login, the provider, the page's JSON sign-in, back to the example's page. */
async function signInThroughApp (t: Test, browser: TestBrowser, page: string, app: string, email: string): Promise<string> {
  const toPage = await browser.navigate(`${app}/login`, {}, (location) => location.startsWith(`${page}/?`))
  const redirect = new URL(toPage.url).searchParams.get('redirect') ?? ''
  t.match(redirect, /^\/oidc\/interaction\/[\w-]+$/, 'the provider sends the visitor to the page, with a redirect back to the interaction')
  const login = await browser.request(`${page}/accounts/v2/login`, { json: { email, password: GOOD_PASSWORD } })
  const { auth } = await login.json() as { auth: string }
  browser.write(page, `auth=${auth}; Path=/; SameSite=Lax`)
  const back = await browser.navigate(`${page}${redirect}`)
  t.equal(back.url, `${app}/`, 'the code reaches the example, which signs the visitor in and shows its page')
  return await back.response.text()
}

t.test('the example starts, shows a signed-out visitor a sign-in link, and stops naming a missing ISSUER', { skip }, async (t) => {
  const port = await freeLoopbackPort()
  const { base } = await startExampleProcess(t, PYTHON!, [APP], { ISSUER: 'http://127.0.0.1:9', CLIENT_ID, PORT: String(port) }, LISTENING)
  t.equal(base, `http://127.0.0.1:${port}`)
  const home = await fetch(`${base}/`)
  t.equal(home.status, 200)
  t.match(await home.text(), '<a href="/login">Sign in</a>')
  const stopped = await runExampleToExit(PYTHON!, [APP], { CLIENT_ID })
  t.equal(stopped.code, 2)
  t.match(stopped.output, 'ISSUER must be set')
})

t.test('a callback the example did not start, and a forged back-channel logout, are refused', { skip }, async (t) => {
  const { page, app } = await pageAndApp(t)
  const browser = new TestBrowser()
  const callback = await browser.request(`${app}/callback?code=stolen&state=guessed`)
  t.equal(callback.status, 400, 'no login_state cookie: the code is never exchanged')
  t.match(await callback.text(), 'This sign-in was not started here')
  const forged = await fetch(`${app}/backchannel-logout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: page, aud: CLIENT_ID, sub: 'x', events: { 'http://schemas.openid.net/event/backchannel-logout': {} } })).toString('base64url')}.` })
  })
  t.equal(forged.status, 400)
  t.same(await forged.json(), { error: 'invalid_request' })
  await t.test('an answer naming another issuer (a mix-up)', async (t) => {
    const started = await browser.request(`${app}/login`)
    const state = new URL(started.headers.get('location') ?? '', page).searchParams.get('state') ?? ''
    const mixedUp = await browser.request(`${app}/callback?${new URLSearchParams({ code: 'from-elsewhere', state, iss: 'https://evil.example' }).toString()}`)
    t.equal(mixedUp.status, 400)
    t.match(await mixedUp.text(), 'The answer came from another provider')
  })
})

t.test('a visitor signs in through the provider with the code flow and PKCE, sees their claims and userinfo, and signs out at the provider', { skip }, async (t) => {
  const { page, app } = await pageAndApp(t)
  await t.test('the flow', async (t) => {
    await registerAccount(page, 'writer@example.com')
    const browser = new TestBrowser()
    const html = await signInThroughApp(t, browser, page, app, 'writer@example.com')
    t.match(html, 'Signed in as <strong>writer@example.com</strong>')
    t.match(html, 'acr <code>urn:threshold:acr:1fa</code>', 'a password sign-in is one factor')
    t.ok(browser.cookie(app, 'session'), 'the example keeps its own session')

    const logout = await browser.navigate(`${app}/logout`)
    t.equal(logout.response.status, 200, 'the provider asks before it signs out')
    const question = await logout.response.text()
    const action = decoded(/<form\b[^>]*\baction="([^"]+)"/.exec(question)?.[1] ?? '')
    const xsrf = fieldOf(question, 'xsrf')
    t.ok(action !== '' && xsrf !== undefined, 'a form with its xsrf field')
    const done = await browser.navigate(new URL(action, page).href, { form: { xsrf: xsrf ?? '', logout: 'yes' } })
    t.equal(done.url, `${app}/`, 'back at the example\'s post-logout address')
    t.match(await done.response.text(), '<a href="/login">Sign in</a>', 'signed out')
    t.equal(browser.cookie(app, 'session'), undefined)
  })
})

t.test('a sign-out at the provider ends the example\'s session through back-channel logout', { skip }, async (t) => {
  const { page, app } = await pageAndApp(t)
  await t.test('the flow', async (t) => {
    await registerAccount(page, 'elsewhere@example.com')
    const browser = new TestBrowser()
    t.match(await signInThroughApp(t, browser, page, app, 'elsewhere@example.com'), 'Signed in as')
    // The visitor signs out at the provider without the example (another client, or the provider's own address).
    const question = await browser.navigate(`${page}/oidc/session/end?client_id=${CLIENT_ID}`)
    const html = await question.response.text()
    const action = decoded(/<form\b[^>]*\baction="([^"]+)"/.exec(html)?.[1] ?? '')
    await browser.navigate(new URL(action, page).href, { form: { xsrf: fieldOf(html, 'xsrf') ?? '', logout: 'yes' } })
    t.ok(browser.cookie(app, 'session'), 'the example\'s cookie is still in the browser')
    t.match(await (await browser.request(`${app}/`)).text(), '<a href="/login">Sign in</a>', 'but the session it named has ended')
  })
})

t.test('a client that is not first-party asks for consent: denied, the example hears access_denied; allowed, the visitor is signed in', { skip }, async (t) => {
  const { page, app } = await pageAndApp(t, { first_party: false })
  await t.test('the flow', async (t) => {
    await registerAccount(page, 'careful@example.com')
    const browser = new TestBrowser()
    const toPage = await browser.navigate(`${app}/login`, {}, (location) => location.startsWith(`${page}/?`))
    const login = await browser.request(`${page}/accounts/v2/login`, { json: { email: 'careful@example.com', password: GOOD_PASSWORD } })
    browser.write(page, `auth=${(await login.json() as { auth: string }).auth}; Path=/; SameSite=Lax`)
    /** Answers the consent page the navigation ends on with `decision`; where the browser ends up. */
    const decide = async (consent: { response: Response }, decision: 'allow' | 'deny') => {
      const html = await consent.response.text()
      t.equal(consent.response.status, 200, 'the consent page')
      t.match(html, 'Notes', 'naming the client')
      const action = decoded(/<form\b[^>]*\baction="([^"]+)"/.exec(html)?.[1] ?? '')
      return await browser.navigate(new URL(action, page).href, { form: { decision } })
    }
    const denied = await decide(await browser.navigate(`${page}${new URL(toPage.url).searchParams.get('redirect') ?? ''}`), 'deny')
    t.match(denied.url, `${app}/callback?`, 'back at the example')
    t.equal(denied.response.status, 400)
    t.match(await denied.response.text(), '<code>access_denied</code>', 'which says what the provider said')
    // Asked again, the visitor, still signed in on the page, goes straight to the consent page.
    const allowed = await decide(await browser.navigate(`${app}/login`), 'allow')
    t.equal(allowed.url, `${app}/`)
    t.match(await allowed.response.text(), 'Signed in as <strong>careful@example.com</strong>')
  })
})
