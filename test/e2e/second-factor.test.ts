import { Secret, TOTP } from 'otpauth'
import type { Page } from 'playwright-core'
import t from 'tap'
import { SECOND_FACTOR_MESSAGES as TEXT } from '../../client/second-factor/messages.js'
import { browserSkip, openPage, unexpectedProblems } from '../fixtures/browser.js'
import { startBuiltServer } from '../fixtures/built-server.js'
import { startProductApp } from '../fixtures/product-app.js'
import { GOOD_PASSWORD, registerAccount } from '../fixtures/reference.js'

/*
 * The second factor in real Chromium against the built server with its
 * embedded reference service (SECOND_FACTOR on by default there; PASSKEYS off,
 * so that the second-factor offer follows a password login). Codes are
 * computed from the key the page shows, as an authenticator app would.
 */

async function passwordLogin (page: Page, email: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD)
  await page.getByRole('button', { name: 'Login', exact: true }).click()
}

/** The code an app holding `key` shows `offsetSteps` 30-second steps from now (the service accepts one step of drift). */
const codeFor = (key: string, offsetSteps = 0): string =>
  new TOTP({ secret: Secret.fromBase32(key.replace(/ /g, '')), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetSteps * 30_000 })

t.test('the second factor in real Chromium', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600', PASSKEYS: 'false' })
  const target = `${server.base}/?redirect=${encodeURIComponent(`${product}/home`)}`
  await registerAccount(server.base, 'grace@example.test')
  let key = ''
  let recoveryCodes: string[] = []

  await t.test('password login → the offer → enrolment: QR and key agree → recovery codes → the redirect', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(target)
    await passwordLogin(page, 'grace@example.test')
    await page.getByRole('button', { name: TEXT.OFFER_ACCEPT }).click()
    const qr = page.getByRole('img', { name: TEXT.QR_LABEL })
    await qr.waitFor()
    key = (await page.getByTestId('enrolment-key').textContent()) ?? ''
    t.match(key, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the key in groups of four')
    await page.getByLabel(TEXT.FIRST_CODE_LABEL).fill(codeFor(key))
    await page.getByRole('button', { name: TEXT.CONFIRM }).click()
    const items = page.getByRole('list', { name: TEXT.CODES_HEADING }).getByRole('listitem')
    await items.first().waitFor()
    recoveryCodes = await items.allTextContents()
    t.equal(recoveryCodes.length, 10, 'ten recovery codes')
    t.equal(await page.getByRole('link', { name: TEXT.DOWNLOAD_CODES }).getAttribute('download'), 'recovery-codes.txt')
    t.ok(await page.getByRole('button', { name: TEXT.CONTINUE }).isDisabled(), 'Continue waits for the confirmation')
    await page.getByRole('checkbox', { name: TEXT.CODES_SAVED }).check()
    await page.getByRole('button', { name: TEXT.CONTINUE }).click()
    await page.waitForURL(`${product}/home`)
    t.same(unexpectedProblems(problems, []), [])
  })

  await t.test('next login → the code step, by keyboard alone → the redirect', async (t) => {
    const { page, context } = await openPage(t)
    await page.goto(target)
    await passwordLogin(page, 'grace@example.test')
    const field = page.getByLabel(TEXT.CODE_LABEL)
    await field.waitFor()
    t.ok(await field.evaluate((element) => element === document.activeElement), 'focus on the code field')
    t.notOk((await context.cookies()).some((cookie) => cookie.name === 'auth'), 'no token before the second factor')
    // The next step's code: the enrolment's own may not be used twice.
    await page.keyboard.type(codeFor(key, 1))
    await page.keyboard.press('Enter')
    await page.waitForURL(`${product}/home`)
  })

  await t.test('a wrong code is refused in an alert; a recovery code works once', async (t) => {
    for (const attempt of ['first', 'second'] as const) {
      const { page } = await openPage(t)
      await page.goto(target)
      await passwordLogin(page, 'grace@example.test')
      await page.getByRole('button', { name: TEXT.USE_RECOVERY }).click()
      await page.getByLabel(TEXT.RECOVERY_LABEL).fill(recoveryCodes[0]!)
      await page.getByRole('button', { name: TEXT.VERIFY }).click()
      if (attempt === 'first') {
        await page.waitForURL(`${product}/home`)
        t.pass('the recovery code signs in')
      } else {
        await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor()
        t.ok(page.url().startsWith(server.base), 'used twice, it is refused and the step stays')
      }
    }
  })
})
