import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { gapBelowHeading, HEADING_GAP_MAX_PX } from '../../fixtures/browsers/gap-below-heading.js'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer, startLocalAccounts } from '../../fixtures/servers/built-server.js'
import { english } from '../../fixtures/languages/messages.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/*
 * The second factor in real Chromium against the built server with its
 * embedded reference service (SECOND_FACTOR on by default there; PASSKEYS off,
 * so that the second-factor offer follows a password login). Codes are
 * computed from the key the page shows, as an authenticator app would.
 */

/** The code an app holding `key` shows `offsetSteps` 30-second steps from now (the service accepts one step of drift). */
const PHONE = { width: 375, height: 812 }

const codeFor = (key: string, offsetSteps = 0): string =>
  new TOTP({ secret: Secret.fromBase32(key.replace(/ /g, '')), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetSteps * 30_000 })

t.test('the second factor in real Chromium', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600', PASSKEYS: 'false' })
  const admin = (args: string[]) => promisify(execFile)(process.execPath, [fileURLToPath(new URL('../../../dist/server/accounts-admin.js', import.meta.url)), ...args], { env: { PATH: process.env.PATH, DATA_DIR: server.dataDir } })
  const target = `${server.base}/?redirect=${encodeURIComponent(`${product}/home`)}`
  await registerAccount(server.base, 'grace@example.test')
  let key = ''
  let recoveryCodes: string[] = []

  await t.test('password login → the offer → enrolment: QR and key agree → recovery codes → the redirect', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(target)
    await signInOnPage(page, 'grace@example.test')
    const offerHeading = page.getByRole('heading', { name: english('secondFactor.offerHeading') })
    await offerHeading.waitFor()
    t.same(await wcagViolations(page), [], 'axe: the offer at 1280×800')
    t.ok(await gapBelowHeading(offerHeading) <= HEADING_GAP_MAX_PX, 'no empty band below the offer\'s heading')
    await page.getByRole('button', { name: english('secondFactor.offerAccept') }).click()
    const qr = page.getByRole('img', { name: english('secondFactor.qrLabel') })
    await qr.waitFor()
    t.same(await wcagViolations(page), [], 'axe: the key and QR step at 1280×800')
    t.ok(await gapBelowHeading(page.getByRole('heading', { name: english('secondFactor.enrolHeading') })) <= HEADING_GAP_MAX_PX, 'no empty band below the enrolment\'s heading')
    key = (await page.getByTestId('enrolment-key').textContent()) ?? ''
    t.match(key, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the key in groups of four')
    await page.getByLabel(english('secondFactor.firstCodeLabel')).fill(codeFor(key))
    await page.getByRole('button', { name: english('secondFactor.confirm') }).click()
    const items = page.getByRole('list', { name: english('secondFactor.codesHeading') }).getByRole('listitem')
    await items.first().waitFor()
    recoveryCodes = await items.allTextContents()
    t.equal(recoveryCodes.length, 10, 'ten recovery codes')
    t.equal(await page.getByRole('link', { name: english('secondFactor.downloadCodes') }).getAttribute('download'), 'recovery-codes.txt')
    t.ok(await page.getByRole('button', { name: english('secondFactor.continue') }).isDisabled(), 'Continue waits for the confirmation')
    t.same(await wcagViolations(page), [], 'axe: the recovery codes at 1280×800')
    t.ok(await gapBelowHeading(page.getByRole('heading', { name: english('secondFactor.codesHeading') })) <= HEADING_GAP_MAX_PX, 'no empty band below the codes\' heading')
    await page.getByRole('checkbox', { name: english('secondFactor.codesSaved') }).check()
    await page.getByRole('button', { name: english('secondFactor.continue') }).click()
    await page.waitForURL(`${product}/home`)
    t.same(unexpectedProblems(problems, []), [])
  })

  let usedCode = ''
  await t.test('next login → the code step, by keyboard alone → the redirect', async (t) => {
    const { page, context } = await openPage(t)
    await page.goto(target)
    await signInOnPage(page, 'grace@example.test')
    const field = page.getByRole('textbox', { name: english('secondFactor.codeLabel'), exact: true })
    await field.waitFor()
    t.ok(await field.evaluate((element) => element === document.activeElement), 'focus on the code field')
    t.equal(await field.getAttribute('autocomplete'), 'one-time-code')
    t.equal(await field.getAttribute('inputmode'), 'numeric')
    t.same(await wcagViolations(page), [], 'axe: the code step at 1280×800')
    t.notOk((await context.cookies()).some((cookie) => cookie.name === 'auth'), 'no token before the second factor')
    // The next step's code: the enrolment's own may not be used twice.
    usedCode = codeFor(key, 1)
    await page.keyboard.type(usedCode)
    await page.keyboard.press('Enter')
    await page.waitForURL(`${product}/home`)
  })

  await t.test('a replayed code is refused; a wrong code is refused in an alert; a recovery code works once', async (t) => {
    const { page } = await openPage(t)
    await page.goto(target)
    await signInOnPage(page, 'grace@example.test')
    const field = page.getByRole('textbox', { name: english('secondFactor.codeLabel'), exact: true })
    await field.fill(usedCode)
    await page.getByRole('button', { name: english('secondFactor.verify') }).click()
    await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor()
    t.ok(page.url().startsWith(server.base), 'the replayed code is refused and the step stays')
    await field.fill(usedCode === '000000' ? '111111' : '000000')
    await page.getByRole('button', { name: english('secondFactor.verify') }).click()
    await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor()
    t.ok(page.url().startsWith(server.base), 'a wrong code is refused and the step stays')
    for (const attempt of ['first', 'second'] as const) {
      const { page } = await openPage(t)
      await page.goto(target)
      await signInOnPage(page, 'grace@example.test')
      await page.getByRole('button', { name: english('secondFactor.useRecovery') }).click()
      await page.getByLabel(english('secondFactor.recoveryLabel')).fill(recoveryCodes[0]!)
      await page.getByRole('button', { name: english('secondFactor.verify') }).click()
      if (attempt === 'first') {
        await page.waitForURL(`${product}/home`)
        t.pass('the recovery code signs in')
      } else {
        await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor()
        t.ok(page.url().startsWith(server.base), 'used twice, it is refused and the step stays')
      }
    }
  })

  await t.test('an organisation requires a second factor: login → enrolment before any token → recovery codes → the redirect; then six wrong codes throttle (375×812)', async (t) => {
    await registerAccount(server.base, 'ann@example.test')
    await admin(['add-member', 'ann@example.test', 'acme', '--allow-unverified'])
    await admin(['require-second-factor', 'acme'])
    const { page, context } = await openPage(t, PHONE)
    await page.goto(target)
    await signInOnPage(page, 'ann@example.test')
    await page.getByRole('img', { name: english('secondFactor.qrLabel') }).waitFor()
    const heading = page.getByRole('heading', { name: english('secondFactor.enrolHeading') })
    t.ok(await heading.evaluate((element) => element === document.activeElement), 'focus on the enrolment\'s heading, as on every other step')
    t.ok(await gapBelowHeading(heading) <= HEADING_GAP_MAX_PX, 'no empty band below the heading at 375×812')
    t.same(await wcagViolations(page), [], 'axe: the required enrolment at 375×812')
    t.notOk((await context.cookies()).some((cookie) => cookie.name === 'auth'), 'no token before the enrolment')
    const annsKey = (await page.getByTestId('enrolment-key').textContent()) ?? ''
    await page.getByLabel(english('secondFactor.firstCodeLabel')).fill(codeFor(annsKey))
    await page.getByRole('button', { name: english('secondFactor.confirm') }).click()
    await page.getByRole('list', { name: english('secondFactor.codesHeading') }).getByRole('listitem').first().waitFor()
    t.same(await wcagViolations(page), [], 'axe: the recovery codes at 375×812')
    t.notOk((await context.cookies()).some((cookie) => cookie.name === 'auth'), 'no token stored before the codes are saved')
    await page.getByRole('checkbox', { name: english('secondFactor.codesSaved') }).check()
    await page.getByRole('button', { name: english('secondFactor.continue') }).click()
    await page.waitForURL(`${product}/home`)
    t.ok((await context.cookies()).some((cookie) => cookie.name === 'auth'), 'the tokens after the enrolment')

    const again = await openPage(t, PHONE)
    await again.page.goto(target)
    await signInOnPage(again.page, 'ann@example.test')
    const field = again.page.getByRole('textbox', { name: english('secondFactor.codeLabel'), exact: true })
    await field.waitFor()
    t.same(await wcagViolations(again.page), [], 'axe: the code step at 375×812')
    const wrong = codeFor(annsKey, 10) === '000000' ? '111111' : '000000'
    let last = ''
    for (let attempt = 1; attempt <= 6; attempt++) {
      await field.fill(wrong)
      // Listening before the click: under load the answer can come before a listener added after it.
      const answered = again.page.waitForResponse((response) => response.url().endsWith('/accounts/second-factor/verify'))
      await again.page.getByRole('button', { name: english('secondFactor.verify') }).click()
      await answered
      last = (await again.page.getByRole('alert').first().textContent()) ?? ''
    }
    t.match(last, /too many|wait/i, `the sixth wrong code is throttled: ${last}`)
  })

  await t.test('local-network mode asks for the second factor too: the enrolment, then the code, posted to the local listener across origins', async (t) => {
    await registerAccount(server.base, 'lan@example.test')
    await admin(['add-member', 'lan@example.test', 'acme', '--allow-unverified'])
    await admin(['require-second-factor', 'acme'])
    const local = await startLocalAccounts(t, { dataDir: server.dataDir, allowedOrigin: server.base })
    const localTarget = `${server.base}/?local_accounts_host=127.0.0.1&local_accounts_port=${local.port}&redirect=${encodeURIComponent(`${product}/lan`)}`
    const { page, context, problems } = await openPage(t)
    const throughTheEdge: string[] = []
    page.on('request', (request) => { if (request.url().startsWith(`${server.base}/accounts/`)) throughTheEdge.push(request.url()) })
    await page.goto(localTarget)
    await signInOnPage(page, 'lan@example.test')
    await page.getByRole('img', { name: english('secondFactor.qrLabel') }).waitFor()
    t.notOk((await context.cookies()).some((cookie) => cookie.name === 'auth'), 'the password alone stores no token')
    t.equal(await page.getByRole('checkbox', { name: english('secondFactor.rememberBrowser') }).count(), 0, 'no browser is remembered there')
    const lansKey = (await page.getByTestId('enrolment-key').textContent()) ?? ''
    await page.getByLabel(english('secondFactor.firstCodeLabel')).fill(codeFor(lansKey))
    await page.getByRole('button', { name: english('secondFactor.confirm') }).click()
    await page.getByRole('checkbox', { name: english('secondFactor.codesSaved') }).check()
    await page.getByRole('button', { name: english('secondFactor.continue') }).click()
    await page.waitForURL(`${product}/lan`)

    const again = await openPage(t)
    again.page.on('request', (request) => { if (request.url().startsWith(`${server.base}/accounts/`)) throughTheEdge.push(request.url()) })
    await again.page.goto(localTarget)
    await signInOnPage(again.page, 'lan@example.test')
    const field = again.page.getByRole('textbox', { name: english('secondFactor.codeLabel'), exact: true })
    await field.waitFor()
    // The enrolment spent this step's code: the next step's, which the service's drift allows.
    await field.fill(codeFor(lansKey, 1))
    const answered = again.page.waitForResponse((response) => response.url() === `http://127.0.0.1:${local.port}/second-factor/verify`)
    await again.page.getByRole('button', { name: english('secondFactor.verify') }).click()
    t.equal((await answered).status(), 200, 'the code went to the local listener, which the browser let the page read (CORS)')
    await again.page.waitForURL(`${product}/lan`)
    const auth = (await again.context.cookies(server.base)).find((cookie) => cookie.name === 'auth')?.value ?? ''
    t.match(JSON.parse(Buffer.from(auth.split('.')[1] ?? '', 'base64url').toString() || '{}'), { scope: 'local-network', amr: ['pwd', 'otp', 'mfa'] })
    t.same(throughTheEdge, [], 'no accounts call went through the edge')
    t.same(unexpectedProblems(problems, []), [])
    t.same(unexpectedProblems(again.problems, []), [])
  })
})
