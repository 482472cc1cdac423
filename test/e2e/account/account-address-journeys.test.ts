import type { Page } from 'playwright-core'
import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { accountsLinkOf, waitForEmail } from '../../fixtures/emails/outbox.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { GOOD_PASSWORD, TEST_PUBLIC_URL } from '../../fixtures/servers/reference.js'
import { registerAccount, verifyAddress } from '../../fixtures/registration/registration.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/*
 * The account view's address change in real Chromium, against the built
 * server with its embedded reference service (passkeys and the second factor
 * off: each sign-in lands on the account view, without an offer): the change
 * asks its fresh proof in place, the link from the outbox confirms it, and
 * the old address is told, with its "this wasn't me" link.
 */

/** The account view's section named by its heading. */
const section = (page: Page, heading: string) => page.getByRole('region', { name: heading })

/** Signs in from the account view's address (the login view, then back), with `email`. */
async function signInToAccountView (page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/?view=account`)
  await signInOnPage(page, email)
}

t.test('the account view\'s address change in real Chromium', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t, { RATE_LIMIT_PER_MINUTE: '600', PASSKEYS: 'false', SECOND_FACTOR: 'false' })
  const { base } = server

  await t.test('change the address: the emailed link confirms it, the new one signs in, the old one does not and was told', async (t) => {
    await verifyAddress(base, server.dataDir, 'old@example.test', await registerAccount(base, 'old@example.test'))
    const { page, context, problems } = await openPage(t)
    await signInToAccountView(page, base, 'old@example.test')
    const address = section(page, english('account.email.heading'))
    await address.getByText(english('account.email.current', { email: 'old@example.test' })).waitFor()

    // Five minutes on, as far as the service is concerned: the sign-in's proof is gone, so the change asks for one.
    await context.clearCookies({ name: 'threshold_proof' })
    await address.getByRole('textbox', { name: english('account.email.new') }).fill('new@example.test')
    await address.getByRole('button', { name: english('account.email.submit') }).click()
    await page.getByRole('heading', { name: english('freshProof.heading') }).waitFor()
    await page.getByRole('textbox', { name: english('field.password'), exact: true }).fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: english('freshProof.confirm'), exact: true }).click()
    await address.getByRole('status').filter({ hasText: english('account.email.sent', { email: 'new@example.test' }) }).waitFor()
    await address.getByText(english('account.email.current', { email: 'old@example.test' })).waitFor()
    t.pass('until the link is opened, the address stays')

    const confirmation = await waitForEmail(server.dataDir, 1, 'addressChange')
    t.match(confirmation.raw, /^To: new@example\.test/m, 'the link goes to the new address')
    await page.goto(accountsLinkOf(confirmation, 'confirmEmail').link.replace(TEST_PUBLIC_URL, base))
    await page.getByRole('status').filter({ hasText: english('notice.emailChanged') }).waitFor()

    const notice = await waitForEmail(server.dataDir, 1, 'emailChanged')
    t.match(notice.raw, /^To: old@example\.test/m, 'the old address is told')
    const undo = accountsLinkOf(notice, 'undoChange').link
    t.match(undo, new RegExp(`/accounts/undoChange\\?token=`), 'with its "this wasn\'t me" link')

    await context.clearCookies()
    await signInToAccountView(page, base, 'old@example.test')
    await page.getByRole('alert').filter({ hasText: /./ }).waitFor()
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'the old address no longer signs in')

    await signInToAccountView(page, base, 'new@example.test')
    await section(page, english('account.email.heading')).getByText(english('account.email.current', { email: 'new@example.test' })).waitFor()
    t.pass('the new address signs in, to an account that shows it')

    await context.clearCookies()
    await page.goto(undo.replace(TEST_PUBLIC_URL, base))
    await page.getByRole('status').filter({ hasText: english('notice.undoChange') }).waitFor()
    t.pass('the "this wasn\'t me" link opens the undo')
    t.same(unexpectedProblems(problems, [401, 403]), [], 'nothing but the proof asked for and the old address refused')
  })
})
