import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { english, shippedTexts } from '../../fixtures/languages/messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { newestResetLink } from '../../fixtures/emails/outbox.js'
import { buildEdge, jsonAnswer, listen, startUpstream } from '../../fixtures/servers/edge.js'
import { withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { openAccountView, signedInBrowser } from '../../fixtures/account/account-browser.js'
import { layoutProblems } from '../../fixtures/browsers/layout-fits.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { startAppleStandIn } from '../../fixtures/social/apple-stand-in.js'
import { startGithubStandIn } from '../../fixtures/social/github-stand-in.js'
import { startMicrosoftStandIn } from '../../fixtures/social/microsoft-stand-in.js'

const SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url))
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const

/** Whether the focused element shows a focus indicator (its own outline, or its field's). */
async function focusIsVisible (page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const focused = document.activeElement
    if (!(focused instanceof HTMLElement)) return false
    const shown = (element: Element) => {
      const style = getComputedStyle(element)
      return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none'
    }
    return shown(focused) || (focused.closest('.field__control') !== null && shown(focused.closest('.field__control')!))
  })
}

const UNVERIFIED_REFUSAL = 'Verify your email address before you log in: follow the link we emailed you.'
const LINK_SENT = 'We have sent a new verification link to kim@example.test.'

/**
 * The real edge, serving the built page, in front of a stand-in accounts
 * service on a loopback port: it refuses every login as an unverified
 * address, and answers the requests for a new link with `linkAnswers` in
 * turn (then with success).
 */
async function startUnverifiedService (t: Test, linkAnswers: Array<[number, unknown]> = []) {
  const upstream = await startUpstream(t, (request, response) => {
    const path = request.url.split('?')[0]
    if (path === '/v2/login') jsonAnswer(403, { error: UNVERIFIED_REFUSAL, reason: 'email_not_verified' })(request, response)
    else if (path === '/verifyEmailRequest') jsonAnswer(...(linkAnswers.shift() ?? [200, { success: LINK_SENT }]))(request, response)
    else jsonAnswer(404, { error: 'Not found.' })(request, response)
  })
  const app = await buildEdge(t, {
    accountsUpstream: upstream.url,
    accountsRoutes: REFERENCE_ACCOUNTS_ROUTES,
    passwordResetCompletion: true,
    // An own backend without passkeys (the edge would otherwise take it for the embedded service, which has them).
    env: { PASSKEYS: 'false' }
  })
  return { base: await listen(app), upstream }
}

t.test('accessibility, keyboard use and screenshots in real Chromium', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t)
  const { base } = server
  mkdirSync(SCREENSHOTS, { recursive: true })

  // An account, and a live reset link for the setPassword view.
  const register = await fetch(`${base}/accounts/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'kim@example.test', password: 'keyboard only please', confirm_password: 'keyboard only please', first_name: '', last_name: '' })
  })
  t.equal(register.status, 200)
  await fetch(`${base}/accounts/resetPasswordRequest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"kim@example.test"}' })
  const resetLink = await newestResetLink(server.dataDir)

  const views: Array<[string, string]> = [
    ['login', '/?home_page_banner=Scheduled%20maintenance%20on%20Sunday%2C%2002%3A00%E2%80%9304%3A00%20UTC'],
    ['register', '/?view=register'],
    ['resetPassword', '/?view=resetPassword'],
    ['setPassword', new URL(resetLink).pathname + new URL(resetLink).search],
    ['error', '/?error=INACTIVITY_LOGOUT']
  ]

  for (const [size, viewport] of Object.entries(SIZES)) {
    await t.test(`every view at ${size} size has no WCAG 2.2 A/AA violation`, async (t) => {
      // Reduced motion: the poster instead of the video, so screenshots are stable.
      const { page, problems } = await openPage(t, { ...viewport, reducedMotion: 'reduce' })
      for (const [name, path] of views) {
        await page.goto(`${base}${path}`)
        await waitForHydration(page)
        t.same(await wcagViolations(page), [], `${name} at ${size}`)
        if (name !== 'error') await page.screenshot({ path: `${SCREENSHOTS}${name}-${size}.png`, fullPage: true })
      }
      await page.goto(base)
      await page.getByRole('button', { name: 'Login with Custom SSO provider' }).click()
      await page.getByRole('dialog').waitFor()
      t.same(await wcagViolations(page), [], `the SSO modal at ${size}`)
      await page.screenshot({ path: `${SCREENSHOTS}sso-modal-${size}.png` })
      t.same(problems, [], 'no console errors and no CSP violations')
    })
  }

  // The states a visitor reaches from the emailed links and from a login refused for an unverified address.
  const unverified = await startUnverifiedService(t)
  for (const [size, viewport] of Object.entries(SIZES)) {
    await t.test(`the notices and the offer of a new verification link at ${size} size have no WCAG 2.2 A/AA violation`, async (t) => {
      const { page, problems } = await openPage(t, { ...viewport, reducedMotion: 'reduce' })
      await page.goto(`${unverified.base}/?notice=email-verified`)
      await page.getByRole('status').filter({ hasText: english('notice.emailVerified') }).waitFor()
      t.same(await wcagViolations(page), [], `login with the email-verified notice at ${size}`)

      for (const [notice, key] of [['end-sessions', 'notice.endSessions'], ['undo-change', 'notice.undoChange']] as const) {
        await page.goto(`${unverified.base}/?view=setPassword&token=tok_1234567890abcdefghij&notice=${notice}`)
        await page.getByRole('status').filter({ hasText: english(key) }).waitFor()
        t.same(await wcagViolations(page), [], `setPassword with the ${notice} notice at ${size}`)
      }

      await page.goto(`${unverified.base}/`)
      await page.getByLabel('Email', { exact: true }).fill('kim@example.test')
      await page.getByLabel('Password', { exact: true }).fill('keyboard only please')
      await page.getByRole('button', { name: 'Login', exact: true }).click()
      await page.getByRole('alert').filter({ hasText: UNVERIFIED_REFUSAL }).waitFor()
      await page.getByRole('button', { name: english('login.sendVerificationLink') }).waitFor()
      t.same(await wcagViolations(page), [], `login with the offer of a new verification link at ${size}`)
      t.same(unexpectedProblems(problems, [403]), [], 'only the refused login')
    })
  }

  await t.test('login with the keyboard alone, with visible focus throughout', async (t) => {
    const { page, problems } = await openPage(t)
    await withoutPasskeyUpgrade(page)
    await page.goto(`${base}/?redirect=%2Fdone`)
    await waitForHydration(page)
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'email', 'the first stop is the email field')
    t.ok(await focusIsVisible(page), 'focus is visible on the email field')
    await page.keyboard.type('kim@example.test')
    await page.keyboard.press('Tab')
    t.ok(await focusIsVisible(page), 'focus is visible on the password field')
    await page.keyboard.type('wrong password')
    await page.keyboard.press('Enter')
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password.' }).waitFor()
    t.pass('the error is announced in an alert')
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('keyboard only please')
    await page.keyboard.press('Enter')
    // The passkey offer follows a password sign-in here (Chromium has no passkey for the account): by keyboard too.
    await page.getByRole('heading', { name: english('passkey.offerHeading') }).waitFor({ timeout: 10_000 })
    const notNow = page.getByRole('button', { name: english('passkey.notNow') })
    for (let presses = 0; presses < 5 && !await notNow.evaluate((element) => element === document.activeElement); presses++) await page.keyboard.press('Tab')
    t.ok(await focusIsVisible(page), 'focus is visible on "Not now"')
    await page.keyboard.press('Enter')
    await page.waitForURL(`${base}/done`)
    t.same(unexpectedProblems(problems, [401, 404]), [], 'only the refused first try (and the redirect target, which is no page here)')
  })

  await t.test('register and reset with the keyboard alone; every stop shows its focus', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(`${base}/?view=register`)
    await waitForHydration(page)
    for (const value of ['Lee', 'Park', 'lee@example.test', 'another good passphrase', 'another good passphrase']) {
      await page.keyboard.press('Tab')
      t.ok(await focusIsVisible(page), `focus visible on ${await page.evaluate(() => document.activeElement?.getAttribute('name'))}`)
      await page.keyboard.type(value)
      if (value.includes('passphrase')) {
        await page.keyboard.press('Tab')
        t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Show', 'the show/hide toggle is reachable')
        t.ok(await focusIsVisible(page), 'focus visible on the toggle')
      }
    }
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Sign Up')
    t.ok(await focusIsVisible(page), 'focus visible on the button')
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'created' }).waitFor()

    await page.goto(`${base}/?view=resetPassword`)
    await waitForHydration(page)
    await page.keyboard.press('Tab')
    await page.keyboard.type('lee@example.test')
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Send a Password Reset Email')
    t.ok(await focusIsVisible(page), 'focus visible on the button')
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'If an account exists' }).waitFor()
    t.same(problems, [])
  })

  await t.test('a new verification link with the keyboard alone: focus goes to the offer, comes back after a refusal, moves on once sent', async (t) => {
    const service = await startUnverifiedService(t, [[429, { error: 'Too many requests. Try again in a few minutes.' }]])
    const { page, problems } = await openPage(t)
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent ?? null)
    await page.goto(`${service.base}/`)
    await waitForHydration(page)
    await page.keyboard.press('Tab')
    await page.keyboard.type('kim@example.test')
    await page.keyboard.press('Tab')
    await page.keyboard.type('keyboard only please')
    await page.keyboard.press('Enter')
    await page.getByRole('alert').filter({ hasText: UNVERIFIED_REFUSAL }).waitFor()
    await page.waitForFunction((label) => document.activeElement?.textContent === label, english('login.sendVerificationLink'))
    t.pass('the refusal is announced, and focus is on the offer')
    t.ok(await focusIsVisible(page), 'focus is visible on the button')
    await page.keyboard.press('Tab')
    t.equal(await focused(), 'email', 'Tab goes on to the email field')
    await page.keyboard.press('Shift+Tab')
    t.equal(await focused(), english('login.sendVerificationLink'), 'Shift+Tab comes back to the button')

    await page.keyboard.press('Enter')
    await page.getByRole('alert').filter({ hasText: 'Too many requests' }).waitFor()
    await page.waitForFunction((label) => document.activeElement?.textContent === label, english('login.sendVerificationLink'))
    t.pass('refused: the error is announced, and focus is back on the button, which Chromium took away while it was disabled')
    t.ok(await focusIsVisible(page), 'focus is visible on the button again')

    await page.keyboard.press(' ')
    await page.getByRole('status').filter({ hasText: LINK_SENT }).waitFor()
    await page.getByRole('button', { name: english('login.sendVerificationLink') }).waitFor({ state: 'detached' })
    t.equal(await focused(), 'email', 'sent: the button goes and focus moves on to the email field')
    t.ok(await focusIsVisible(page), 'focus is visible on the email field')
    const linkRequests = service.upstream.requests.filter((request) => request.url === '/verifyEmailRequest')
    t.same(linkRequests.map((request) => JSON.parse(request.body.toString('utf8'))), [{ email: 'kim@example.test' }, { email: 'kim@example.test' }],
      'Enter, then Space, each sent the email field\'s address')
    t.same(unexpectedProblems(problems, [403, 429]), [], 'only the refused login and the refused request')
  })

  await t.test('the SSO modal with the keyboard alone', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(base)
    await waitForHydration(page)
    const sso = page.getByRole('button', { name: 'Login with Custom SSO provider' })
    await sso.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').waitFor()
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'email')
    t.ok(await page.evaluate(() => document.querySelector('[role="dialog"]')?.contains(document.activeElement)), 'the dialog\'s email field')
    await page.keyboard.type('kim@corp.test')
    for (let stop = 0; stop < 6; stop++) {
      await page.keyboard.press('Tab')
      t.ok(await page.evaluate(() => document.querySelector('[role="dialog"]')?.contains(document.activeElement)), `Tab ${stop + 1} stays in the dialog`)
      t.ok(await focusIsVisible(page), `focus visible at stop ${stop + 1}`)
    }
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    t.ok(await sso.evaluate((element) => element === document.activeElement), 'focus returns to the SSO button')
    t.same(problems, [])
  })
})

/** An operator's icon for a generic connection: a small SVG file, as SOCIAL_CONNECTIONS names it. */
function iconFile (t: Test): string {
  const directory = mkdtempSync(join(tmpdir(), 'threshold-icon-'))
  t.teardown(() => rmSync(directory, { recursive: true, force: true }))
  const path = join(directory, 'gitlab.svg')
  writeFileSync(path, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><path fill="#e24329" d="M10 18 2 8l2-6 3 6h6l3-6 2 6z"/></svg>')
  return path
}

/** axe on the page as it stands, at both sizes, light and dark; and at each size, whatever does not fit (layout-fits.ts). */
async function checkEverywhere (t: Test, page: Page, locale: 'en' | 'ar', what: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport)
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      t.same(await wcagViolations(page), [], `${what}: ${locale}, ${size}, ${colorScheme}`)
    }
    t.same(await layoutProblems(page), [], `${what}: ${locale}, ${size}: nothing overlaps, is cut off or reaches past the card`)
  }
}

t.test('social buttons, the SSO offer found by the address and the account\'s sign-in methods: axe in English and Arabic, at both sizes, light and dark, everything in its place', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  let base = ''
  const github = await startGithubStandIn(t, { redirectUri: () => `${base}/accounts/auth/social/callback/github` })
  const apple = await startAppleStandIn(t)
  const microsoft = await startMicrosoftStandIn(t)
  // Neither the generic provider nor the SSO connection's is asked anything until a visitor starts with it (lazy discovery).
  const nowhere = 'http://127.0.0.1:9'
  const server = await startBuiltServer(t, {
    SOCIAL_CONNECTIONS: JSON.stringify([
      apple.connection(), microsoft.connection(), github.connection(),
      { type: 'oidc', id: 'gitlab', name: 'GitLab', icon: iconFile(t), issuer: nowhere, client_id: 'threshold', client_secret: 'a-client-secret' }
    ]),
    SSO_DISCOVERY: 'true',
    SSO_CONNECTIONS: JSON.stringify([{ domain: 'corp.example.com', type: 'oidc', issuer: nowhere, client_id: 'threshold', client_secret: 'a-client-secret' }]),
    // A password sign-in ends at its redirect (the passkey and second-factor offers are other suites' subjects).
    PASSKEYS: 'false',
    SECOND_FACTOR: 'false',
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1'
  })
  base = server.base

  await t.test('the login and register views with four social buttons, then with "Continue with single sign-on" for the typed address', async (t) => {
    for (const [locale, browserLocale] of [['en', 'en-US'], ['ar', 'ar-EG']] as const) {
      const say = shippedTexts(locale)
      const { page, problems } = await openPage(t, { ...SIZES.desktop, locale: browserLocale, reducedMotion: 'reduce' })
      for (const view of ['login', 'register'] as const) {
        await page.setViewportSize(SIZES.desktop)
        await page.goto(`${base}/?view=${view}`)
        await waitForHydration(page)
        t.same(await page.locator('form.social button').allTextContents(), view === 'login'
          ? [say('social.apple.login'), say('social.microsoft'), say('social.github.login'), say('social.generic', { provider: 'GitLab' })]
          : [say('social.apple.register'), say('social.microsoft'), say('social.github.register'), say('social.generic', { provider: 'GitLab' })],
        `${view}, ${locale}: the four buttons in the operator's order`)
        await checkEverywhere(t, page, locale, `${view} with social buttons`)
        await page.locator('input[name="email"]').fill('ada@corp.example.com')
        await page.getByRole('button', { name: say('ssoDiscovery.continue') }).waitFor()
        t.equal(await page.locator('input[name="password"]').count(), 0, `${view}, ${locale}: the offer in place of the password`)
        await checkEverywhere(t, page, locale, `${view} with the SSO offer`)
      }
      t.same(problems, [], `${locale}: no console errors and no CSP violations`)
    }
  })

  await t.test('the account view\'s "Sign-in methods", one provider connected, the others not', async (t) => {
    await registerAccount(base, 'noor@example.test')
    const here = await signedInBrowser(t, base, `${product}/home`, 'noor@example.test')
    const { page, problems } = here
    await page.emulateMedia({ reducedMotion: 'reduce' })
    await openAccountView(here, base)
    const section = page.getByRole('region', { name: english('account.social.heading') })
    // Just signed in with the password: the fresh proof holds, and Connect goes straight to the provider and back.
    await section.getByRole('button', { name: english('account.social.connect', { provider: 'GitHub' }) }).click()
    await section.getByRole('status').filter({ hasText: english('account.social.connected', { provider: 'GitHub' }) }).waitFor()
    await checkEverywhere(t, page, 'en', 'the account view, GitHub just connected')
    for (const locale of ['en', 'ar'] as const) {
      const say = shippedTexts(locale)
      await page.setViewportSize(SIZES.desktop)
      await page.goto(`${base}/?view=account&ui_locales=${locale}`)
      await waitForHydration(page)
      const methods = page.getByRole('region', { name: say('account.social.heading') })
      t.ok(await methods.getByRole('button', { name: say('account.social.disconnect', { provider: 'GitHub' }) }).isVisible(), `${locale}: GitHub can be disconnected`)
      t.equal(await methods.getByRole('button', { name: say('account.social.connect', { provider: 'Apple' }) }).count(), 1, `${locale}: Apple can be connected`)
      await checkEverywhere(t, page, locale, 'the account view')
    }
    t.same(problems, [], 'no console errors and no CSP violations')
  })
})
