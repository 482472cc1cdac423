import { Secret, TOTP } from 'otpauth'
import type { BrowserContext, Locator, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import englishCatalogue from '../../../common/messages/en.json' with { type: 'json' }
import { SUCCESS_MESSAGES } from '../../../common/languages/page-texts.js'
import { KNOWN_BROWSER_COOKIE } from '../../../server/edge/known-browsers/known-browser.js'
import { browserSkip, launchBrowser, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { newestResetLink } from '../../fixtures/emails/outbox.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { postJson } from '../../fixtures/http/post-json.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { startOidcProvider } from '../../fixtures/sso/sso-oidc-provider.js'
import { ServiceBrowser } from '../../fixtures/browsers/service-browser.js'

/*
 * The forms of the server-rendered page in real Chromium with JavaScript
 * off, against the built server and its embedded reference service: every
 * flow that works without scripts ends as it does with them (docs/no-script.md).
 * And a submit before the scripts have loaded ends the same way.
 */

const FOURTEEN_DAYS_S = 14 * 24 * 60 * 60

/** A browser context with JavaScript off (or on, for the submit during hydration), with nothing reaching the internet. */
async function openPage (t: Test, javaScriptEnabled = false): Promise<{ context: BrowserContext, page: Page }> {
  const browser = await launchBrowser(t)
  const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 800 } })
  t.teardown(() => context.close())
  await context.route('https://accounts.google.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }))
  await context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
  return { context, page: await context.newPage() }
}

/** The form the page posts as `name` (its hidden `form` field): the SSO form has an Email field too. */
function form (page: Page, name: string): Locator {
  return page.locator('form').filter({ has: page.locator(`input[name="form"][value="${name}"]`) })
}

async function fill (page: Page, label: string, value: string, formName = 'login'): Promise<void> {
  await form(page, formName).getByLabel(label, { exact: true }).fill(value)
}

/** The token cookies as the browser kept them, checked against the page's attributes (docs/security.md, "The token cookies"). */
async function checkTokenCookies (t: Test, context: BrowserContext, base: string): Promise<void> {
  const cookies = await context.cookies(base)
  for (const [name, httpOnly] of [['auth', false], ['refresh', true]] as const) {
    const cookie = cookies.find((candidate) => candidate.name === name)
    t.ok(cookie, `the ${name} cookie is set`)
    if (cookie === undefined) continue
    // http://localhost: without Secure, which WebKit would not keep there (over https: test/e2e/sessions/session-cookies.test.ts).
    t.equal(cookie.secure, false, `${name}: no Secure on a loopback http page`)
    t.equal(cookie.sameSite, 'Lax', `${name}: SameSite=Lax`)
    t.equal(cookie.httpOnly, httpOnly, httpOnly ? `${name}: HttpOnly, as the edge sets it for the page` : `${name}: readable by the product's pages, as the page's cookie is`)
    t.equal(cookie.path, '/')
    const lifetime = cookie.expires - Date.now() / 1000
    t.ok(lifetime > FOURTEEN_DAYS_S - 120 && lifetime <= FOURTEEN_DAYS_S + 5, `${name}: 14 days`)
  }
}

t.test('the forms without scripts in real Chromium against the built server', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  let base = ''
  const oidc = await startOidcProvider(t, { redirectUri: () => `${base}/accounts/auth/sso/oidc/callback` })
  const server = await startBuiltServer(t, {
    PASSKEYS: 'false',
    SECOND_FACTOR: 'true',
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
    SSO_CONNECTIONS: JSON.stringify([
      { domain: 'oidc.example.com', type: 'oidc', issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret }
    ])
  })
  base = server.base
  const target = `${product}/dashboard`

  await t.test('register, then log in: the token cookies set and the redirect target reached', async (t) => {
    const { page, context } = await openPage(t)
    await page.goto(`${base}/?view=register&redirect=${encodeURIComponent(target)}`)
    await fill(page, 'First Name (optional)', 'Ada', 'register')
    await fill(page, 'Company Email', 'ada.noscript@example.test', 'register')
    await fill(page, 'Password', GOOD_PASSWORD, 'register')
    await fill(page, 'Confirm Password', GOOD_PASSWORD, 'register')
    await page.getByRole('button', { name: 'Sign Up' }).click()
    await page.getByRole('status').filter({ hasText: /account has been created|You can now log in/ }).waitFor()
    t.equal(await form(page, 'login').getByLabel('Email', { exact: true }).inputValue(), 'ada.noscript@example.test', 'the registered email is kept for the login')

    await fill(page, 'Password', GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.waitForURL(target)
    t.equal(await page.locator('h1').textContent(), 'Welcome to the product')
    await checkTokenCookies(t, context, base)
  })

  await t.test('a wrong password: the message shown, the email kept, the password field empty', async (t) => {
    await registerAccount(base, 'wrong.noscript@example.test')
    const { page, context } = await openPage(t)
    await page.goto(`${base}/`)
    await fill(page, 'Email', 'wrong.noscript@example.test')
    await fill(page, 'Password', 'not the password 9')
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password.' }).waitFor()
    t.equal(await form(page, 'login').getByLabel('Email', { exact: true }).inputValue(), 'wrong.noscript@example.test')
    t.equal(await form(page, 'login').getByLabel('Password', { exact: true }).inputValue(), '')
    t.notOk((await page.content()).includes('not the password 9'), 'the password is not in the page')
    t.equal(await page.title(), 'Error: Log in · Threshold', 'the refusal announced in the title')
    // The browser applies `autofocus` at its next rendering, not while parsing: under load, after the alert shows.
    const focused = await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'password', undefined, { timeout: 5000 })
      .then(() => 'password', () => page.evaluate(() => document.activeElement?.getAttribute('name') ?? null))
    t.equal(focused, 'password', 'the first invalid field (the email is kept) has the focus')
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === 'auth'))
  })

  await t.test('a reset request, then a new password from the emailed link, then a login with it', async (t) => {
    await registerAccount(base, 'reset.noscript@example.test')
    const { page } = await openPage(t)
    await page.goto(`${base}/?view=resetPassword`)
    await fill(page, 'Email', 'reset.noscript@example.test', 'resetPassword')
    await page.getByRole('button', { name: 'Send a Password Reset Email' }).click()
    await page.getByRole('status').filter({ hasText: SUCCESS_MESSAGES.RESET_REQUESTED }).waitFor()

    await page.goto(await newestResetLink(server.dataDir))
    const newPassword = 'a brand new password 42'
    await fill(page, 'New Password', newPassword, 'setPassword')
    await fill(page, 'Confirm Password', newPassword, 'setPassword')
    await page.getByRole('button', { name: 'Set New Password' }).click()
    await page.getByRole('status').filter({ hasText: SUCCESS_MESSAGES.PASSWORD_SET }).waitFor()

    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await fill(page, 'Email', 'reset.noscript@example.test')
    await fill(page, 'Password', newPassword)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.waitForURL(target)
  })

  await t.test('the code step of a login whose second factor is due', async (t) => {
    await registerAccount(base, 'code.noscript@example.test')
    // Enrolled in the browser that signed in: the sign-in is its fresh proof.
    const enrolling = new ServiceBrowser(base)
    const bearer = await enrolling.bearerAfterSignIn('code.noscript@example.test')
    const secret = String((await enrolling.post('second-factor/enrol/start', {}, bearer)).body.secret)
    const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 })
    t.equal((await enrolling.post('second-factor/enrol/confirm', { code: totp.generate() }, bearer)).status, 200)

    const { page, context } = await openPage(t)
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await fill(page, 'Email', 'code.noscript@example.test')
    await fill(page, 'Password', GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.getByRole('textbox', { name: 'Authenticator code' }).waitFor()
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'no token before the code')
    // The next window's code: the one the enrolment used is spent.
    await page.getByRole('textbox', { name: 'Authenticator code' }).fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.waitForURL(target)
    await checkTokenCookies(t, context, base)
  })

  await t.test('the SSO start reaches the identity provider', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await page.locator('summary', { hasText: 'Login with Custom SSO provider' }).click()
    await page.locator('#sso-fallback-email').fill('alice@oidc.example.com')
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(`${oidc.issuer}/**`)
    t.ok(page.url().startsWith(oidc.issuer), `at the identity provider: ${new URL(page.url()).pathname}`)
  })

  await t.test('the view links lead to each view', async (t) => {
    const { page } = await openPage(t)
    await page.goto(`${base}/?redirect=%2Fapp`)
    await page.getByRole('link', { name: 'Sign Up' }).click()
    await page.waitForURL(/view=register/)
    t.ok(await page.getByLabel('Company Email', { exact: true }).isVisible())
    t.match(page.url(), /redirect=%2Fapp/, 'the address\'s other parameters kept')
    await page.getByRole('link', { name: 'Login' }).click()
    await page.getByRole('link', { name: 'Forgot Password' }).click()
    await page.waitForURL(/view=resetPassword/)
    t.ok(await page.getByRole('button', { name: 'Send a Password Reset Email' }).isVisible())
  })

  await t.test('a login submitted while the scripts are still loading ends as with them: cookies and the redirect target', async (t) => {
    await registerAccount(base, 'early.noscript@example.test')
    const { page, context } = await openPage(t, true)
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    let scriptsHeld = 0
    await page.route('**/assets/*.js', async (route) => {
      scriptsHeld++
      await held
      await route.continue().catch(() => {})
    })
    t.teardown(() => release())
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`, { waitUntil: 'commit' })
    await fill(page, 'Email', 'early.noscript@example.test')
    await fill(page, 'Password', GOOD_PASSWORD)
    t.ok(scriptsHeld > 0, 'the page\'s script is still on its way')
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.waitForURL(target)
    release()
    await checkTokenCookies(t, context, base)
  })

  await t.test('a login filled while the scripts are held back, then submitted once the page has hydrated: nothing typed is lost', async (t) => {
    await registerAccount(base, 'hydrated.early@example.test')
    const { page, context } = await openPage(t, true)
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    await page.route('**/assets/*.js', async (route) => {
      await held
      await route.continue().catch(() => {})
    })
    t.teardown(() => release())
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`, { waitUntil: 'commit' })
    await fill(page, 'Email', 'hydrated.early@example.test')
    await fill(page, 'Password', GOOD_PASSWORD)
    release()
    await waitForHydration(page)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    // Signed in by the scripts, which offer a second factor (SECOND_FACTOR) before they go on.
    await page.getByRole('button', { name: 'Not now' }).click()
    await page.waitForURL(target)
    await checkTokenCookies(t, context, base)
  })
})

t.test('attack: strangers\' guesses at an account; the owner\'s browser that signed in before, with scripts or without, signs in without them, a stranger\'s is told it needs JavaScript', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const target = `${product}/dashboard`
  // The challenge at its defaults (5 failed logins an account); strangers' guesses come through a trusted proxy, each from a range of its own.
  const { base } = await startBuiltServer(t, { CHALLENGE: 'pow', TRUST_PROXY: 'loopback', PASSKEYS: 'false', REDIRECT_ALLOWED_HOSTS: '127.0.0.1' })
  const owner = 'owner.noscript@example.test'
  await registerAccount(base, owner)
  let ranges = 0
  const strangersGuess = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) {
      const guess = await postJson(base, '/accounts/v2/login', { email: owner, password: `guess ${i}` }, { 'x-forwarded-for': `2001:db8:${(++ranges).toString(16)}::7` })
      t.equal(guess.status, 401, `a stranger's guess ${ranges}`)
    }
  }
  let visits = 0
  /** Logs in as the owner from `page`; the target it leads to. Each post is another (its redirect differs): the edge answers the same post from one address again with its first answer (docs/no-script.md). */
  const logIn = async (page: Page, scripts = false): Promise<string> => {
    const visit = `${target}?visit=${++visits}`
    await page.goto(`${base}/?redirect=${encodeURIComponent(visit)}`)
    if (scripts) await waitForHydration(page)
    await fill(page, 'Email', owner)
    await fill(page, 'Password', GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    return visit
  }

  // Before the attack: the owner signs in without scripts in one browser, with them in another.
  const withoutScripts = await openPage(t)
  await withoutScripts.page.waitForURL(await logIn(withoutScripts.page))
  const note = (await withoutScripts.context.cookies(base)).find((cookie) => cookie.name === KNOWN_BROWSER_COOKIE)
  t.match(note, { path: '/', httpOnly: true, secure: false, sameSite: 'Strict' }, 'the edge notes the browser, for the whole origin, out of scripts\' reach (no Secure on http://localhost)')
  const scripted = await openPage(t, true)
  const scriptedVisit = await logIn(scripted.page, true)
  // Signed in by the scripts, which offer a second factor before they go on.
  await scripted.page.getByRole('button', { name: 'Not now' }).click()
  await scripted.page.waitForURL(scriptedVisit)
  // The same browser, its scripts turned off: its cookies, nothing else.
  const scriptsTurnedOff = await openPage(t)
  await scriptsTurnedOff.context.addCookies(await scripted.context.cookies(base))

  const stranger = await openPage(t)
  for (const [what, browser] of [['signed in without scripts before', withoutScripts], ['signed in with scripts before', scriptsTurnedOff]] as const) {
    // Each time: her last sign-in cleared the account's count.
    await strangersGuess()
    await logIn(stranger.page)
    await stranger.page.getByRole('alert').filter({ hasText: englishCatalogue['server.challengeNeedsScripts'] }).waitFor()
    t.notOk((await stranger.context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'a stranger\'s browser without scripts is told the check needs them, even with the right password')
    const page = await browser.context.newPage()
    await page.waitForURL(await logIn(page))
    t.pass(`the owner's browser ${what} signs in without scripts`)
  }
})
