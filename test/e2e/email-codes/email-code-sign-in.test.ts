import t from 'tap'
import { EMAIL_CODE_LIFETIME_SECONDS } from '../../../common/email-codes/email-code-format.js'
import { browserSkip, openPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { emailedCode } from '../../fixtures/email-codes/reference-email-codes.js'
import { codeField, EMAIL_CODE_LOGIN_PATH, methodButton, requestEmailCode, submitEmailCode } from '../../fixtures/email-codes/email-code-page.js'
import { english } from '../../fixtures/languages/messages.js'
import { registerAccount, verifyAddress } from '../../fixtures/registration/registration.js'
import { faketimeSkip, movableClock } from '../../fixtures/servers/faketime.js'
import { runAccountsAdmin, startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { postLogin } from '../../fixtures/sign-in/sign-in.js'

/*
 * Signing in with an emailed code in real Chromium against the built server
 * with its embedded reference service (EMAIL_CODES on by default there), the
 * codes read from its outbox. The offers after a sign-in are off (PASSKEYS,
 * SECOND_FACTOR), so that a sign-in leaves for the redirect at once. The
 * server's clock is libfaketime's (servers/faketime.ts), so that a code
 * expires without a ten-minute wait; the expiry is the file's last journey,
 * since the clock only moves forward.
 */

t.test('sign in with an emailed code in real Chromium', { skip: browserSkip || faketimeSkip }, async (t) => {
  const product = await startProductApp(t)
  const clock = movableClock(t)
  // Every journey comes from 127.0.0.1: the per-address limit is raised so that the file is not its own flood.
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600', PASSKEYS: 'false', SECOND_FACTOR: 'false', ...clock.env })
  const { base, dataDir } = server
  const home = `${product}/home`
  const target = `${base}/?redirect=${encodeURIComponent(home)}`
  const signedIn = async (context: { cookies: (url: string) => Promise<Array<{ name: string }>> }) =>
    (await context.cookies(base)).some((cookie) => cookie.name === 'auth')
  /** The claims of the `auth` cookie's token. */
  const authClaims = async (context: { cookies: (url: string) => Promise<Array<{ name: string, value: string }>> }) => {
    const token = (await context.cookies(base)).find((cookie) => cookie.name === 'auth')?.value ?? ''
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}') as Record<string, unknown>
  }

  await t.test('an existing account: the method, the request step with the typed address, the code from the email, signed in at the redirect', async (t) => {
    const email = 'ada@example.test'
    await verifyAddress(base, dataDir, email, await registerAccount(base, email))
    const { page, context, problems } = await openPage(t)
    await page.goto(target)
    await waitForHydration(page)
    await page.getByLabel(english('field.email'), { exact: true }).fill(email)
    await methodButton(page, english('methods.emailCode')).click()
    await page.getByRole('heading', { name: english('emailCode.requestHeading') }).waitFor()
    t.equal(await page.getByRole('textbox', { name: english('field.email'), exact: true }).inputValue(), email, 'the address typed on the login view is carried over')
    await page.getByRole('button', { name: english('emailCode.send'), exact: true }).click()
    await codeField(page).waitFor()
    t.ok(await page.getByRole('heading', { name: english('emailCode.codeHeading') }).isVisible(), 'the code step')
    t.equal(await codeField(page).getAttribute('autocomplete'), 'one-time-code', 'the field says a one-time code goes in it')
    t.equal(await codeField(page).getAttribute('autocapitalize'), 'characters', 'a phone\'s keyboard offers capitals')

    const { email: message, code } = await emailedCode(dataDir, email)
    t.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/, 'the code in two groups of four')
    const subject = /^Subject: (.*)$/m.exec(message.decoded)?.[1] ?? ''
    t.notOk(subject.includes(code) || subject.includes(code.replace('-', '')), 'the code is not in the subject')
    t.notOk(await signedIn(context), 'nothing stored before the code')
    const answer = await submitEmailCode(page, code)
    t.equal(answer.status, 200, 'the code signs in')
    await page.waitForURL(home)
    t.ok(await signedIn(context), 'the token cookies')
    t.same((await authClaims(context)).amr, ['email'], 'signed in by the emailed code alone')
    t.same(unexpectedProblems(problems, []), [], 'no console error')
  })

  await t.test('a new address, the code pasted: the account is created with its address verified and no password, and signed in', async (t) => {
    const email = 'newcomer@example.test'
    const { page, context, problems } = await openPage(t)
    await page.goto(target)
    await requestEmailCode(page, email)
    // Pasted as a visitor may copy it: in small letters, the dash replaced by a space.
    const code = (await emailedCode(dataDir, email)).code.toLowerCase().replace('-', ' ')
    const answer = await submitEmailCode(page, code, english, { paste: true })
    t.equal(answer.status, 200, 'the code signs up and in')
    await page.waitForURL(home)
    t.ok(await signedIn(context), 'the token cookies')
    t.equal((await authClaims(context)).email_verified, true, 'the token says the address is verified')
    const shown = await runAccountsAdmin(server, ['show', email])
    t.match(shown, /^Verified: +yes/m, 'the account exists, its address verified')
    t.match(shown, /^Password: +no$/m, 'without a password')

    // An account without a password answers a password login as a wrong password does.
    await registerAccount(base, 'known@example.test')
    const wrongPassword = await postLogin(base, 'known@example.test', 'not the password 7')
    const login = await postLogin(base, email, 'not the password 7')
    t.equal(login.status, wrongPassword.status, `a password login for the new account fails (${login.status})`)
    t.same(login.body, wrongPassword.body, 'with the wrong-credentials answer')
    t.same(unexpectedProblems(problems, []), [], 'no console error')
  })

  await t.test('a wrong code: a clear message, the code step stays, and the right code then signs in', async (t) => {
    const email = 'wrong.code@example.test'
    const { page, context, problems } = await openPage(t)
    await page.goto(target)
    await requestEmailCode(page, email)
    const code = (await emailedCode(dataDir, email)).code
    const wrong = code.startsWith('A') ? 'BBBB-BBBB' : 'AAAA-AAAA'
    const refused = await submitEmailCode(page, wrong)
    t.equal(refused.status, 401, 'the wrong code is refused')
    t.equal(refused.body.reason, 'code_wrong', 'as wrong')
    const alert = page.getByRole('alert').filter({ hasText: String(refused.body.error) })
    await alert.waitFor()
    t.ok(String(refused.body.error).length > 0, `the message: ${String(refused.body.error)}`)
    t.ok(await codeField(page).isVisible(), 'still on the code step')
    t.notOk(await signedIn(context), 'nothing stored')
    const answer = await submitEmailCode(page, code)
    t.equal(answer.status, 200, 'the right code then signs in')
    await page.waitForURL(home)
    t.same(unexpectedProblems(problems, [401]), [], 'no console error but the refusal\'s 401')
  })

  await t.test('a used code is refused the second time, in the browser that used it', async (t) => {
    const email = 'reused.code@example.test'
    const { page, context } = await openPage(t)
    await page.goto(target)
    await requestEmailCode(page, email)
    const code = (await emailedCode(dataDir, email)).code
    t.equal((await submitEmailCode(page, code)).status, 200, 'the first use signs in')
    await page.waitForURL(home)
    await context.clearCookies({ name: 'auth' })
    await context.clearCookies({ name: 'refresh' })
    // The same call from the same browser (its cookies, the page's origin): the code step is gone once the page left.
    await page.goto(base)
    const second = await page.evaluate(async ({ path, email, code }) => {
      const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, code }) })
      return { status: response.status, body: await response.json() as Record<string, unknown> }
    }, { path: EMAIL_CODE_LOGIN_PATH, email, code })
    t.equal(second.status, 401, 'the second use is refused')
    t.equal(second.body.reason, 'code_expired', 'as a used code: nothing tells it from an expired one')
    t.notOk('auth' in second.body || 'refresh' in second.body, 'no token')
    t.notOk(await signedIn(context), 'nothing stored')
  })

  await t.test('a code asked for in one browser is refused in another with its own message, and still works in the first', async (t) => {
    const email = 'two.browsers@example.test'
    const first = await openPage(t)
    await first.page.goto(target)
    await requestEmailCode(first.page, email)
    const firstCode = (await emailedCode(dataDir, email, 1)).code

    // The other browser asks for a code too (its own, bound to it), then types the first browser's.
    const other = await openPage(t)
    await other.page.goto(target)
    await requestEmailCode(other.page, email)
    await emailedCode(dataDir, email, 2)
    const refused = await submitEmailCode(other.page, firstCode)
    t.equal(refused.status, 401, 'the other browser\'s code is refused')
    t.equal(refused.body.reason, 'code_other_browser', 'as another browser\'s')
    await other.page.getByRole('alert').filter({ hasText: String(refused.body.error) }).waitFor()
    t.comment(`the message: ${String(refused.body.error)}`)
    t.ok(await codeField(other.page).isVisible(), 'the other browser stays on the code step')
    t.notOk(await signedIn(other.context), 'the other browser is not signed in')

    t.equal((await submitEmailCode(first.page, firstCode)).status, 200, 'the code still signs in where it was asked for')
    await first.page.waitForURL(home)
    t.ok(await signedIn(first.context), 'the first browser is signed in')
  })

  await t.test('an expired code: refused as expired, the step stays, and "Send a new code" sends one that works', async (t) => {
    const email = 'late@example.test'
    const { page, context } = await openPage(t)
    await page.goto(target)
    await requestEmailCode(page, email)
    const code = (await emailedCode(dataDir, email, 1)).code
    // The server's clock past the code's lifetime; the browser's, and its cookie's Max-Age, stay on time.
    clock.advance(EMAIL_CODE_LIFETIME_SECONDS + 60)
    const refused = await submitEmailCode(page, code)
    t.equal(refused.status, 401, 'the expired code is refused')
    t.equal(refused.body.reason, 'code_expired', 'as expired')
    await page.getByRole('alert').filter({ hasText: String(refused.body.error) }).waitFor()
    t.comment(`the message: ${String(refused.body.error)}`)
    t.ok(await codeField(page).isVisible(), 'still on the code step')
    t.notOk(await signedIn(context), 'nothing stored')

    await page.getByRole('button', { name: english('emailCode.resend'), exact: true }).click()
    const fresh = (await emailedCode(dataDir, email, 2)).code
    t.not(fresh, code, 'a new code')
    t.equal((await submitEmailCode(page, fresh)).status, 200, 'the new code signs in')
    await page.waitForURL(home)
    t.ok(await signedIn(context), 'signed in')
  })
})
