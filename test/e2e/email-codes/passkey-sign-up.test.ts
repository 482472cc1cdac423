import t from 'tap'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { emailedCode } from '../../fixtures/email-codes/reference-email-codes.js'
import { isFocused, methodButton, requestEmailCode, submitEmailCode } from '../../fixtures/email-codes/email-code-page.js'
import { english } from '../../fixtures/languages/messages.js'
import { withoutAutofill, withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { addVirtualAuthenticator } from '../../fixtures/passkeys/virtual-authenticator.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { runAccountsAdmin, startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { postLogin } from '../../fixtures/sign-in/sign-in.js'

/*
 * An account that never has a password, in real Chromium against the built
 * server with its embedded reference service: signed up with a passkey (the
 * address proven by an emailed code first), signed out, signed in with the
 * passkey. The virtual authenticator (passkeys/virtual-authenticator.ts)
 * answers the passkey step's prompt; a conditional create never settles in
 * Chromium here and holds up every later ceremony, so the page is told there
 * is none (withoutPasskeyUpgrade), and the autofill request is off
 * (withoutAutofill) so that only the button signs in.
 */

t.test('sign up with a passkey and no password, then sign in with it, in real Chromium', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // The second factor's offer would follow the sign-up (the second-factor suite's subject).
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600', SECOND_FACTOR: 'false' })
  const { base, dataDir } = server
  const home = `${product}/home`
  const email = 'pia@example.test'

  const { page, context, problems } = await openPage(t)
  const authenticator = await addVirtualAuthenticator(page)
  await withoutPasskeyUpgrade(page)
  await withoutAutofill(page)

  await t.test('the register view → "Sign up with a passkey" → the code → the passkey step → a passkey → signed in at the redirect', async (t) => {
    await page.goto(`${base}/?view=register&redirect=${encodeURIComponent(home)}`)
    await requestEmailCode(page, email, { method: 'methods.signUpWithPasskey' })
    const answer = await submitEmailCode(page, (await emailedCode(dataDir, email)).code)
    t.equal(answer.status, 200, 'the code signs up')
    const heading = page.getByRole('heading', { name: english('emailCode.passkeyHeading') })
    await heading.waitFor()
    t.ok(await page.getByText(english('emailCode.passkeyExplanation')).isVisible(), 'the passkey step says why')
    const create = page.getByRole('button', { name: english('passkey.create'), exact: true })
    t.ok(await isFocused(heading) || await isFocused(create), 'focus on the passkey step')
    await create.click()
    await page.waitForURL(home)
    const held = await authenticator.credentials()
    t.equal(held.length, 1, 'a passkey on the authenticator')
    t.equal(held[0]?.rpId, 'localhost', 'for the page\'s relying party')
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in')
    const shown = await runAccountsAdmin(server, ['show', email])
    t.match(shown, /^Verified: +yes/m, 'the account exists, its address verified')
    t.match(shown, /^Password: +no$/m, 'without a password')
    t.match(await runAccountsAdmin(server, ['passkeys', email]), /has 1 passkey:/, 'and with the passkey')
  })

  await t.test('no password works for the account: a password login fails as wrong credentials', async (t) => {
    await registerAccount(base, 'known@example.test')
    const wrongPassword = await postLogin(base, 'known@example.test', 'not the password 7')
    const login = await postLogin(base, email, 'correct horse battery staple')
    t.equal(login.status, wrongPassword.status, `refused (${login.status})`)
    t.same(login.body, wrongPassword.body, 'with the wrong-credentials answer')
  })

  await t.test('signed out, the login view\'s passkey button signs in again', async (t) => {
    await page.goto(base)
    await page.getByRole('button', { name: english('signedIn.signOut'), exact: true }).click()
    await page.getByText(english('signedIn.signedOut')).waitFor()
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), 'signed out')
    await methodButton(page, english('login.withPasskey')).click()
    await page.getByRole('heading', { name: english('signedIn.heading') }).waitFor()
    t.ok(await page.getByText(english('signedIn.as', { email })).isVisible(), 'signed in as the passkey\'s account')
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'the token cookies')
    t.same(unexpectedProblems(problems, []), [], 'no console error')
  })
})
