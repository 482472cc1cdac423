import { Secret, TOTP } from 'otpauth'
import type { Page, Request } from 'playwright-core'
import t from 'tap'
import { browserSkip, launchBrowser } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { ServiceBrowser } from '../../fixtures/browsers/service-browser.js'

/*
 * The attack on a shared computer (review M1): a visitor signs in without
 * scripts, a login whose code step or refusal answered the POST itself left
 * that POST in history, and Back, Forward or Reload (with "Confirm form
 * resubmission") sent the password again. Every page of a login post now
 * comes after a 303 (post/redirect/get): history holds only GETs.
 */

const PASSWORD_FIELD = `password=${encodeURIComponent(GOOD_PASSWORD).replace(/%20/g, '+')}`

/** Every POST / the page sends that carries the password, recorded from now on. */
function passwordPosts (page: Page): Request[] {
  const seen: Request[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/' && (request.postData() ?? '').includes(PASSWORD_FIELD)) seen.push(request)
  })
  return seen
}

/** Back, Forward and Reload through the history a login left, each allowed to end however the browser ends it. */
async function walkHistory (page: Page): Promise<void> {
  for (const move of [() => page.goBack(), () => page.goForward(), () => page.reload(), () => page.goBack(), () => page.reload()]) {
    await move().catch(() => undefined)
    await page.waitForLoadState('load').catch(() => undefined)
  }
}

t.test('without scripts, going back and forth after a login sends no password again', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'true' })
  const base = server.base
  const browser = await launchBrowser(t)

  await t.test('after the code step', async (t) => {
    await registerAccount(base, 'history.code@example.test')
    // Enrolled in the browser that signed in: the sign-in is its fresh proof.
    const enrolling = new ServiceBrowser(base)
    const bearer = await enrolling.bearerAfterSignIn('history.code@example.test')
    const secret = String((await enrolling.post('second-factor/enrol/start', {}, bearer)).body.secret)
    const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 })
    t.equal((await enrolling.post('second-factor/enrol/confirm', { code: totp.generate() }, bearer)).status, 200)

    const context = await browser.newContext({ javaScriptEnabled: false })
    t.teardown(() => context.close())
    const page = await context.newPage()
    const posts = passwordPosts(page)
    await page.goto(`${base}/?redirect=%2Fapp`)
    await page.getByLabel('Email', { exact: true }).first().fill('history.code@example.test')
    await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.getByRole('textbox', { name: 'Authenticator code' }).waitFor()
    t.equal(posts.length, 1, 'the login posted the password once')
    t.equal(new URL(page.url()).pathname + new URL(page.url()).search, '/?redirect=%2Fapp', 'the code step is a GET of the page\'s own address')
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === '__Host-threshold-form'), 'the flash is gone once shown')

    await walkHistory(page)
    t.equal(posts.length, 1, 'Back, Forward and Reload sent no POST carrying the password')
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), 'and no one is signed in')
  })

  await t.test('after a refused login', async (t) => {
    await registerAccount(base, 'history.wrong@example.test')
    const context = await browser.newContext({ javaScriptEnabled: false })
    t.teardown(() => context.close())
    const page = await context.newPage()
    const wrong = 'not the password 9'
    const posts: Request[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST' && (request.postData() ?? '').includes('password=')) posts.push(request)
    })
    await page.goto(`${base}/`)
    await page.getByLabel('Email', { exact: true }).first().fill('history.wrong@example.test')
    await page.getByLabel('Password', { exact: true }).fill(wrong)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.getByRole('alert').first().waitFor()
    t.equal(posts.length, 1)
    t.equal(await page.getByLabel('Email', { exact: true }).first().inputValue(), 'history.wrong@example.test', 'the email kept')
    await walkHistory(page)
    t.equal(posts.length, 1, 'no POST carrying a password sent again')
  })
})
