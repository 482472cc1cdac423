import type { Locator, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { browserSkip, launchBrowser } from '../../fixtures/browsers/chromium.js'
import { emailedCode } from '../../fixtures/email-codes/reference-email-codes.js'
import { english } from '../../fixtures/languages/messages.js'
import { registerAccount, verifyAddress } from '../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'

/*
 * The emailed code with JavaScript off, in real Chromium against the built
 * server and its embedded reference service: the edge takes the page's form
 * posts (`email-code-request`, then `email-code`), the email's code is typed
 * into the code step the edge renders, and the sign-in ends as the login
 * form's does (the token cookies, the redirect).
 */

async function openWithoutScripts (t: Test): Promise<Page> {
  const context = await (await launchBrowser(t)).newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } })
  t.teardown(() => context.close())
  await context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
  return await context.newPage()
}

/** The form the page posts as `name` (its hidden `form` field). */
function form (page: Page, name: string): Locator {
  return page.locator('form').filter({ has: page.locator(`input[name="form"][value="${name}"]`) })
}

t.test('the emailed code without scripts in real Chromium', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', PASSKEYS: 'false', SECOND_FACTOR: 'false' })
  const { base, dataDir } = server
  const home = `${product}/home`
  const email = 'nora@example.test'
  await verifyAddress(base, dataDir, email, await registerAccount(base, email))

  const page = await openWithoutScripts(t)
  await page.goto(`${base}/?redirect=${encodeURIComponent(home)}`)
  const request = form(page, 'email-code-request')
  // Like the SSO form without scripts, it may sit in a disclosure named after the method.
  const disclosure = page.locator('summary').filter({ hasText: english('methods.emailCode') })
  if (await disclosure.count() > 0) await disclosure.click()
  await request.getByRole('textbox', { name: english('field.email'), exact: true }).fill(email)
  await request.getByRole('button').click()

  const code = form(page, 'email-code')
  const field = code.getByRole('textbox', { name: english('emailCode.codeLabel'), exact: true })
  await field.waitFor()
  t.ok(await page.getByRole('heading', { name: english('emailCode.codeHeading') }).isVisible(), 'the code step, rendered by the server')
  t.ok(await page.getByRole('status').filter({ hasText: /\S/ }).first().isVisible(), 'the send\'s notice')
  t.equal(await code.locator('input[name="email"]').inputValue(), email, 'the address goes with the code')
  const resend = form(page, 'email-code-request')
  t.equal(await resend.locator('input[type="hidden"][name="email"]').inputValue(), email, '"Send a new code" posts the address, hidden')
  t.ok(await resend.getByRole('button', { name: english('emailCode.resend'), exact: true }).isVisible(), '"Send a new code"')
  const emailed = (await emailedCode(dataDir, email)).code

  // A wrong code: the code step again, with the error.
  await field.fill(emailed.startsWith('A') ? 'BBBB-BBBB' : 'AAAA-AAAA')
  await code.getByRole('button', { name: english('emailCode.submit'), exact: true }).click()
  await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor()
  t.ok(await field.isVisible(), 'a wrong code: the code step again, with its error')
  t.notOk((await page.context().cookies(base)).some((cookie) => cookie.name === 'auth'), 'no token')

  await field.fill(emailed)
  await code.getByRole('button', { name: english('emailCode.submit'), exact: true }).click()
  await page.waitForURL(home)
  const cookies = await page.context().cookies(base)
  t.ok(cookies.some((cookie) => cookie.name === 'auth'), 'the auth cookie')
  t.ok(cookies.some((cookie) => cookie.name === 'refresh' && cookie.httpOnly), 'the refresh cookie, HttpOnly')
})
