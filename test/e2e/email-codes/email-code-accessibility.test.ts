import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { PASSKEY_OFFER_DECLINED_KEY } from '../../../client/passkeys/passkey-timing.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, launchBrowser, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { emailedCode } from '../../fixtures/email-codes/reference-email-codes.js'
import { codeField, isFocused, methodButton, requestEmailCode, submitEmailCode, type Texts } from '../../fixtures/email-codes/email-code-page.js'
import { english, shippedTexts } from '../../fixtures/languages/messages.js'
import { withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { addVirtualAuthenticator } from '../../fixtures/passkeys/virtual-authenticator.js'
import { registerAccount, verifyAddress } from '../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'

/*
 * axe (WCAG 2.2 A/AA) on the emailed code's steps and on the login view with
 * the last-used mark, at 1280×800 and 375×812, light and dark, in English and
 * in Arabic (right to left), in real Chromium against the built server with
 * its embedded reference service; and the code sign-in by keyboard alone,
 * focus moved to each new step.
 */

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const
const LAST_USED_KEY = 'threshold:last-sign-in-method'

/** axe's violations at both sizes in both colour schemes, each named by where it was found. */
async function violationsEverywhere (page: Page, what: string): Promise<string[]> {
  const found: string[] = []
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport)
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      found.push(...(await wcagViolations(page)).map((violation) => `${what}, ${size}, ${colorScheme}: ${violation}`))
    }
  }
  await page.setViewportSize(SIZES.desktop)
  return found
}

t.test('the emailed code\'s steps in real Chromium: axe at both sizes, light and dark, in English and Arabic; keyboard only', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600', SECOND_FACTOR: 'false' })
  const { base, dataDir } = server
  const browser = await launchBrowser(t)

  /** A page with the virtual authenticator (the page offers passkeys where the browser can make one) and no conditional create. */
  const open = async (t: Test, lastUsed?: string) => {
    const context = await browser.newContext({
      viewport: SIZES.desktop,
      reducedMotion: 'reduce',
      ...(lastUsed === undefined ? {} : { storageState: { cookies: [], origins: [{ origin: base, localStorage: [{ name: LAST_USED_KEY, value: lastUsed }] }] } })
    })
    t.teardown(() => context.close())
    await context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`) })
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    await addVirtualAuthenticator(page)
    await withoutPasskeyUpgrade(page)
    return { page, problems }
  }

  for (const locale of ['en', 'ar'] as const) {
    const say: Texts = locale === 'en' ? english : shippedTexts('ar')
    const query = `?ui_locales=${locale}&redirect=${encodeURIComponent(`${product}/home`)}`

    await t.test(`${locale}: the login view with the last-used mark, the request step, the code step, and its error`, async (t) => {
      const { page, problems } = await open(t, 'email-code')
      await page.goto(`${base}/${query}`)
      await page.getByText(say('lastUsed.mark'), { exact: true }).waitFor()
      t.equal(await page.evaluate(() => document.documentElement.dir), locale === 'ar' ? 'rtl' : 'ltr', `the page in ${locale}`)
      t.same(await violationsEverywhere(page, 'the login view with the mark'), [], 'axe: the login view with the mark')

      await methodButton(page, say('methods.emailCode')).click()
      await page.getByRole('button', { name: say('emailCode.send'), exact: true }).waitFor()
      t.same(await violationsEverywhere(page, 'the request step'), [], 'axe: the request step')

      const email = `steps.${locale}@example.test`
      await page.getByRole('textbox', { name: say('field.email'), exact: true }).fill(email)
      await page.getByRole('button', { name: say('emailCode.send'), exact: true }).click()
      await codeField(page, say).waitFor()
      t.same(await violationsEverywhere(page, 'the code step'), [], 'axe: the code step')

      const code = (await emailedCode(dataDir, email)).code
      const refused = await submitEmailCode(page, code.startsWith('A') ? 'BBBB-BBBB' : 'AAAA-AAAA', say)
      t.equal(refused.status, 401, 'a wrong code is refused')
      await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor()
      t.same(await violationsEverywhere(page, 'the code step with its error'), [], 'axe: the code step with its error')
      t.same(unexpectedProblems(problems, [401]), [], 'no console error but the refusal\'s 401')
    })

    await t.test(`${locale}: the passkey step of a sign-up with a passkey`, async (t) => {
      const { page, problems } = await open(t)
      await page.goto(`${base}/${query}&view=register`)
      const email = `passkey.${locale}@example.test`
      await requestEmailCode(page, email, { say, method: 'methods.signUpWithPasskey' })
      t.equal((await submitEmailCode(page, (await emailedCode(dataDir, email)).code, say)).status, 200, 'the code signs up')
      await page.getByRole('heading', { name: say('emailCode.passkeyHeading') }).waitFor()
      t.same(await violationsEverywhere(page, 'the passkey step'), [], 'axe: the passkey step')
      t.same(unexpectedProblems(problems, []), [], 'no console error')
    })
  }

  await t.test('keyboard only: Tab to the method, type the address, Enter, type the code, Enter; focus on each new step', async (t) => {
    const email = 'keys@example.test'
    await verifyAddress(base, dataDir, email, await registerAccount(base, email))
    // A known account signs in; the passkey offer after it is not this test's subject.
    const { page, problems } = await open(t)
    await page.addInitScript((key) => { localStorage.setItem(key, String(Date.now() + 86_400_000)) }, PASSKEY_OFFER_DECLINED_KEY)
    await page.goto(`${base}/?redirect=${encodeURIComponent(`${product}/home`)}`)
    // Enter on the server's markup before hydration would do nothing.
    await waitForHydration(page)
    const method = methodButton(page, english('methods.emailCode'))
    for (let presses = 0; presses < 20 && !await isFocused(method); presses++) await page.keyboard.press('Tab')
    t.ok(await isFocused(method), 'the method\'s button is reached by Tab')
    await page.keyboard.press('Enter')

    const requestHeading = page.getByRole('heading', { name: english('emailCode.requestHeading') })
    const emailField = page.getByRole('textbox', { name: english('field.email'), exact: true })
    await emailField.waitFor()
    t.ok(await isFocused(requestHeading) || await isFocused(emailField), `focus on the request step's ${await isFocused(emailField) ? 'field' : 'heading'}`)
    for (let presses = 0; presses < 5 && !await isFocused(emailField); presses++) await page.keyboard.press('Tab')
    t.ok(await isFocused(emailField), 'the address field is reached by Tab')
    await page.keyboard.type(email)
    await page.keyboard.press('Enter')

    const field = codeField(page)
    await field.waitFor()
    const codeHeading = page.getByRole('heading', { name: english('emailCode.codeHeading') })
    t.ok(await isFocused(codeHeading) || await isFocused(field), `focus on the code step's ${await isFocused(field) ? 'field' : 'heading'}`)
    for (let presses = 0; presses < 5 && !await isFocused(field); presses++) await page.keyboard.press('Tab')
    t.ok(await isFocused(field), 'the code field is reached by Tab')
    await page.keyboard.type((await emailedCode(dataDir, email)).code)
    await page.keyboard.press('Enter')
    await page.waitForURL(`${product}/home`)
    t.pass('signed in at the redirect by keyboard alone')
    t.same(unexpectedProblems(problems, []), [], 'no console error')
  })
})
