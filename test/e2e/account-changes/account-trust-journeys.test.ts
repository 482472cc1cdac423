import type { Page } from 'playwright-core'
import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { emailedLinks, newestLink } from '../../fixtures/emails/outbox.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

const PASSWORD = 'correct horse battery'
const NEW_PASSWORD = 'a brand new passphrase'

async function fill (page: Page, label: string, value: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).fill(value)
}

async function logIn (page: Page, base: string, redirect: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/?redirect=${encodeURIComponent(redirect)}`)
  await signInOnPage(page, email, password)
}

t.test('verified addresses and "was this you?" in real Chromium against the built server', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // Passkeys and the second factor off: these journeys end each password sign-in at its redirect, without an offer (the passkey and second-factor suites have those).
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', REQUIRE_VERIFIED_EMAIL: 'true', PASSKEYS: 'false', SECOND_FACTOR: 'false' })
  const { base } = server
  const seen = new Set<string>()

  await t.test('register; login waits for the address; the new link from the outbox verifies it; then login', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(`${base}/?view=register`)
    await fill(page, 'Company Email', 'vera@example.test')
    await fill(page, 'Password', PASSWORD)
    await fill(page, 'Confirm Password', PASSWORD)
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'open the link we have sent to this address' }).waitFor()
    seen.add(await newestLink(server.dataDir, 'verify'))

    await logIn(page, base, `${product}/home`, 'vera@example.test')
    await page.getByRole('alert').filter({ hasText: 'Your email address is not verified yet.' }).waitFor()
    const resend = page.getByRole('button', { name: english('login.sendVerificationLink') })
    await resend.waitFor()
    t.ok(await resend.evaluate((button) => button === document.activeElement), 'the offer has the focus')
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'we have sent it a new link' }).waitFor()

    const link = await newestLink(server.dataDir, 'verify', seen)
    seen.add(link)
    t.match(link, new RegExp(`^${base}/accounts/verifyEmail\\?token=`))
    await page.goto(link)
    await page.getByRole('status').filter({ hasText: english('notice.emailVerified') }).waitFor()
    t.equal(new URL(page.url()).searchParams.get('view'), 'login', 'on the login view')
    t.notOk(new URL(page.url()).searchParams.has('notice'), 'the notice left the address bar')

    await logIn(page, base, `${product}/home`, 'vera@example.test')
    await page.waitForURL(`${product}/home`)
    await page.goto(link)
    await page.getByRole('alert').filter({ hasText: english('notice.verifyLinkInvalid') }).waitFor()
    t.pass('the link works once')
    t.same(unexpectedProblems(problems, [403]), [], 'nothing but the refused login')
  })

  await t.test('a sign-in from a second browser emails the owner; the link ends the first browser\'s session and asks for a new password', async (t) => {
    // Owen registers and verifies his address in the first browser, which the service then knows.
    const first = await openPage(t)
    await first.page.goto(`${base}/?view=register`)
    await fill(first.page, 'Company Email', 'owen@example.test')
    await fill(first.page, 'Password', PASSWORD)
    await fill(first.page, 'Confirm Password', PASSWORD)
    await first.page.getByRole('button', { name: 'Sign Up', exact: true }).click()
    await first.page.getByRole('status').waitFor()
    const verify = await newestLink(server.dataDir, 'verify', seen)
    seen.add(verify)
    await first.page.goto(verify)
    await logIn(first.page, base, `${product}/home`, 'owen@example.test')
    await first.page.waitForURL(`${product}/home`)
    const firstRefresh = (await first.context.cookies(base)).find((cookie) => cookie.name === 'refresh')!.value
    t.ok((await first.context.cookies(`${base}/accounts`)).some((cookie) => cookie.name === 'threshold_browser' && cookie.httpOnly),
      'the first browser holds an HttpOnly browser cookie')
    const noticesBefore = (await emailedLinks(server.dataDir, 'endSessions')).length

    const second = await openPage(t)
    await logIn(second.page, base, `${product}/home`, 'owen@example.test')
    await second.page.waitForURL(`${product}/home`)

    const link = await newestLink(server.dataDir, 'endSessions', new Set((await emailedLinks(server.dataDir, 'endSessions')).slice(0, noticesBefore)))
    t.equal((await emailedLinks(server.dataDir, 'endSessions')).length, noticesBefore + 1, 'the second browser\'s sign-in, and only it, emailed the owner')
    await first.page.goto(link)
    await first.page.getByRole('status').filter({ hasText: english('notice.endSessions') }).waitFor()
    await fill(first.page, 'New Password', NEW_PASSWORD)
    await fill(first.page, 'Confirm Password', NEW_PASSWORD)
    await first.page.getByRole('button', { name: 'Set New Password' }).click()
    await first.page.getByRole('status').filter({ hasText: 'password has been changed' }).waitFor()
    const refreshed = await fetch(`${base}/accounts/token/refresh`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh: firstRefresh })
    })
    t.equal(refreshed.status, 401, 'saving it ended the first browser\'s session')
    await logIn(first.page, base, `${product}/again`, 'owen@example.test', NEW_PASSWORD)
    await first.page.waitForURL(`${product}/again`)
    t.same(unexpectedProblems(first.problems, []), [])
  })
})
