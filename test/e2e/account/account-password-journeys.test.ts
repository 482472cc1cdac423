import type { Page } from 'playwright-core'
import t from 'tap'
import { openAccountView, refreshStatus, signedInBrowser } from '../../fixtures/account/account-browser.js'
import { browserSkip, openPage, unexpectedProblems, type WatchedPage } from '../../fixtures/browsers/chromium.js'
import { english } from '../../fixtures/languages/messages.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/*
 * The account view's changes that need a fresh proof, in real Chromium
 * against the built server and its embedded reference service: the proof is
 * asked in place (the sign-in's own proof is taken from the browser first),
 * and what the change did is checked by signing in afterwards.
 */

const NEW_PASSWORD = 'a brand new passphrase'

/** The sign-in's fresh proof gone from the browser, as it is once its window has passed: the next change asks for it. */
async function proofExpired ({ context }: WatchedPage): Promise<void> {
  await context.clearCookies({ name: 'threshold_proof' })
}

/** Answers the proof step the change put in place of its form, with the account's password. */
async function proveInPlace (page: Page, password: string): Promise<void> {
  const step = page.getByRole('region', { name: english('freshProof.heading') })
  await step.waitFor()
  await step.getByLabel(english('field.password'), { exact: true }).fill(password)
  await step.getByRole('button', { name: english('freshProof.confirm') }).click()
}

/** Signs in on a fresh browser's login view; resolves to where it ended: the product, or the login view's alert. */
async function signInOutcome (t: Parameters<typeof openPage>[0], base: string, product: string, email: string, password: string): Promise<string> {
  const { page } = await openPage(t)
  await page.goto(`${base}/?redirect=${encodeURIComponent(product)}`)
  await signInOnPage(page, email, password)
  const refused = page.getByRole('alert').filter({ hasText: /\S/ })
  await Promise.race([page.waitForURL(product), refused.waitFor()])
  return page.url() === product ? 'signed in' : `refused: ${await refused.textContent()}`
}

t.test('the account view\'s password and deletion in real Chromium against the built server', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // Passkeys and the second factor off: each password sign-in ends at its redirect, and the proof is the password alone.
  const { base } = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', PASSKEYS: 'false', SECOND_FACTOR: 'false', RATE_LIMIT_PER_MINUTE: '600' })

  await t.test('a password change asks for the fresh proof in place; then the old password fails and the new one signs in', async (t) => {
    await registerAccount(base, 'ines@example.test')
    const here = await signedInBrowser(t, base, `${product}/home`, 'ines@example.test')
    const other = await signedInBrowser(t, base, `${product}/home`, 'ines@example.test')
    await openAccountView(here, base)
    await proofExpired(here)
    const section = here.page.getByRole('region', { name: english('account.password.heading') })
    await section.getByLabel(english('field.newPassword'), { exact: true }).fill(NEW_PASSWORD)
    await section.getByLabel(english('field.confirmPassword'), { exact: true }).fill(NEW_PASSWORD)
    await section.getByRole('button', { name: english('account.password.submit') }).click()
    await proveInPlace(here.page, GOOD_PASSWORD)
    await section.getByRole('status').filter({ hasText: /\S/ }).waitFor()

    t.match(await signInOutcome(t, base, `${product}/old`, 'ines@example.test', GOOD_PASSWORD), /^refused: /, 'the old password no longer signs in')
    t.equal(await signInOutcome(t, base, `${product}/new`, 'ines@example.test', NEW_PASSWORD), 'signed in', 'the new one does')
    t.equal(await refreshStatus(other, base), 200, 'unasked, the other browser stays signed in')
    t.same(unexpectedProblems(here.problems, [403]), [], 'nothing but the change that asked for the proof')
  })

  await t.test('with "Sign out everywhere else too", the change ends the other browser\'s session and keeps this one', async (t) => {
    await registerAccount(base, 'jonas@example.test')
    const here = await signedInBrowser(t, base, `${product}/home`, 'jonas@example.test')
    const other = await signedInBrowser(t, base, `${product}/home`, 'jonas@example.test')
    await openAccountView(here, base)
    await proofExpired(here)
    const section = here.page.getByRole('region', { name: english('account.password.heading') })
    await section.getByLabel(english('field.newPassword'), { exact: true }).fill(NEW_PASSWORD)
    await section.getByLabel(english('field.confirmPassword'), { exact: true }).fill(NEW_PASSWORD)
    await section.getByRole('checkbox', { name: english('account.password.endOthers') }).check()
    await section.getByRole('button', { name: english('account.password.submit') }).click()
    await proveInPlace(here.page, GOOD_PASSWORD)
    await section.getByRole('status').filter({ hasText: /\S/ }).waitFor()

    t.equal(await refreshStatus(other, base), 401, 'the other browser\'s session has ended')
    await openAccountView(here, base)
    const sessions = here.page.getByRole('region', { name: english('account.sessions.heading') })
    t.equal(await sessions.getByRole('listitem').count(), 1, 'this browser is still signed in, alone')
    t.equal(await refreshStatus(here, base), 200, 'and its session lives on')
  })

  await t.test('deleting the account (the fresh proof, the address typed): it cannot sign in, and its address can register again', async (t) => {
    await registerAccount(base, 'karim@example.test')
    const here = await signedInBrowser(t, base, `${product}/home`, 'karim@example.test')
    await openAccountView(here, base)
    await proofExpired(here)
    const section = here.page.getByRole('region', { name: english('account.delete.heading') })
    await section.getByLabel(english('account.delete.confirmLabel', { email: 'karim@example.test' })).fill('karim@example.test')
    await section.getByRole('button', { name: english('account.delete.submit') }).click()
    await proveInPlace(here.page, GOOD_PASSWORD)
    await here.page.getByRole('status').filter({ hasText: english('account.delete.deleted') }).waitFor()
    t.same((await here.context.cookies(base)).filter((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), [], 'both token cookies are gone')

    t.match(await signInOutcome(t, base, `${product}/gone`, 'karim@example.test', GOOD_PASSWORD), /^refused: /, 'the deleted account cannot sign in')
    await here.page.goto(`${base}/?view=register`)
    await here.page.getByLabel(english('field.companyEmail'), { exact: true }).fill('karim@example.test')
    await here.page.getByLabel(english('field.password'), { exact: true }).fill(NEW_PASSWORD)
    await here.page.getByLabel(english('field.confirmPassword'), { exact: true }).fill(NEW_PASSWORD)
    await here.page.getByRole('button', { name: 'Sign Up', exact: true }).click()
    await here.page.getByRole('status').filter({ hasText: /\S/ }).waitFor()
    t.equal(await signInOutcome(t, base, `${product}/again`, 'karim@example.test', NEW_PASSWORD), 'signed in', 'its address registered again, and signs in')
    t.same(unexpectedProblems(here.problems, [403]), [], 'nothing but the change that asked for the proof')
  })
})
