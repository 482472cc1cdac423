import type { Page } from 'playwright-core'
import t from 'tap'
import { browserSkip, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { english } from '../../fixtures/languages/messages.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { startAppleStandIn } from '../../fixtures/social/apple-stand-in.js'
import { startGithubStandIn } from '../../fixtures/social/github-stand-in.js'
import { startMicrosoftStandIn } from '../../fixtures/social/microsoft-stand-in.js'
import { callbackOf, formPostOf, holdsSession, openSocialPage } from '../../fixtures/social/social-page.js'

/*
 * The social buttons on the login view, in real Chromium against the built
 * server: the operator's order, the one used last first with its tag,
 * login_method naming one provider, and a whole sign-in by keyboard alone.
 */

/** The social buttons' labels, in the page's order (the DOM's, which assistive technology reads). */
async function socialButtons (page: Page): Promise<string[]> {
  return (await page.locator('form.social button').allTextContents()).map((label) => label.trim())
}

/** The label of the social button the "Last used" tag follows, and whether no other button comes between them. */
async function markedButton (page: Page): Promise<string | null> {
  const mark = page.getByText(english('lastUsed.mark'), { exact: true })
  await mark.waitFor()
  return await mark.evaluate((element) => {
    const buttons = [...document.querySelectorAll('form.social button')]
    const before = buttons.filter((button) => (button.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0)
    return before.at(-1)?.textContent?.trim() ?? null
  })
}

t.test('the social buttons on the login view, in real Chromium', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  let base = ''
  const apple = await startAppleStandIn(t, { redirectUri: () => formPostOf(base) })
  const microsoft = await startMicrosoftStandIn(t, { redirectUri: () => callbackOf(base, 'microsoft') })
  const github = await startGithubStandIn(t, { redirectUri: () => callbackOf(base, 'github') })
  const server = await startBuiltServer(t, {
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '600',
    SOCIAL_CONNECTIONS: JSON.stringify([apple.connection(), microsoft.connection(), github.connection()])
  })
  base = server.base
  const target = `${product}/dashboard`
  const [appleLabel, microsoftLabel, githubLabel] = [english('social.apple.login'), english('social.microsoft'), english('social.github.login')]

  await t.test('after a GitHub sign-in, the page opened again shows GitHub first, with its "Last used" tag', async (t) => {
    const { page, context, problems } = await openSocialPage(t)
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await waitForHydration(page)
    t.same(await socialButtons(page), [appleLabel, microsoftLabel, githubLabel], 'the operator\'s order')
    t.equal(await page.getByText(english('lastUsed.mark'), { exact: true }).count(), 0, 'nothing used yet')
    await page.getByRole('button', { name: githubLabel, exact: true }).click()
    await page.waitForURL(target)

    // Signed out (the session's cookies gone); the mark is this browser's own.
    await context.clearCookies()
    await page.goto(base)
    await waitForHydration(page)
    t.equal(await markedButton(page), githubLabel, 'the tag follows GitHub\'s button')
    t.same(await socialButtons(page), [githubLabel, appleLabel, microsoftLabel], 'GitHub first, the others in the operator\'s order')
    t.same(problems, [])
  })

  await t.test('login_method=GITHUB shows GitHub\'s button alone, and the sign-in works by keyboard alone', async (t) => {
    const { page, context, problems } = await openSocialPage(t)
    await page.goto(`${base}/?login_method=GITHUB&redirect=${encodeURIComponent(target)}`)
    await waitForHydration(page)
    t.same(await socialButtons(page), [githubLabel], 'GitHub\'s button alone')
    t.equal(await page.locator('input[type="password"]').count(), 0, 'no password field')
    t.equal(await page.getByRole('button', { name: english('methods.loginWithSso') }).count(), 0, 'no single sign-on')

    const button = page.getByRole('button', { name: githubLabel, exact: true })
    let presses = 0
    while (!await button.evaluate((element) => element === document.activeElement) && presses < 20) {
      await page.keyboard.press('Tab')
      presses++
    }
    t.ok(presses < 20, `Tab reaches GitHub's button (${presses} presses)`)
    t.ok(await button.evaluate((element) => element.matches(':focus-visible')), 'its focus is visible')
    t.not(await button.evaluate((element) => getComputedStyle(element).outlineStyle), 'none', 'drawn as an outline')
    await page.keyboard.press('Enter')
    await page.waitForURL(target)
    t.ok(await holdsSession(context, base), 'signed in')
    t.same(problems, [])
  })
})
