import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { browserSkip, launchBrowserWithBackForwardCache, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startUpstream } from '../../fixtures/servers/edge.js'
import { accountAnswers, answeringByPath, authTokenFor } from '../../fixtures/account/account-upstream.js'

/*
 * The back/forward cache (docs/security.md, "The back/forward cache") in real
 * Chromium, its cache on: the login page left with a password typed comes
 * back from that cache without it, and afresh; a page with the visitor's
 * state (the account view, a form post's answer) never comes back from it.
 * The built server runs in front of a stand-in accounts service that answers
 * the account's calls; the login page calls nothing before it is left.
 */

const SECRET = 'a password typed 7'

/**
 * A page restored from the back/forward cache: its pageshows were the load's
 * and the restore's, and its navigation entry is still the first load's (a
 * Back that loads the page again reads `back_forward` there, with one pageshow).
 */
const RESTORED = { type: 'navigate', restored: true, shows: [false, true] }

/** The values of the page's password fields. */
async function passwordValues (page: Page): Promise<string[]> {
  return await page.locator('input[type="password"]').evaluateAll((fields) => fields.map((field) => (field as HTMLInputElement).value))
}

/** Records, in every document the page opens, each pageshow's `persisted` (a restore from the cache shows true). */
async function recordPageshows (page: Page): Promise<void> {
  await page.addInitScript(() => {
    const shown: boolean[] = []
    Object.assign(window, { __pageshows: shown })
    addEventListener('pageshow', (event) => { shown.push(event.persisted) })
  })
}

/** How the page now shown came: its navigation's type and whether its last pageshow was a restore from the back/forward cache. */
async function howItCame (page: Page): Promise<{ type: string, restored: boolean, shows: boolean[] }> {
  return await page.evaluate(() => ({
    type: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).type,
    restored: (window as unknown as { __pageshows: boolean[] }).__pageshows.at(-1) === true,
    shows: (window as unknown as { __pageshows: boolean[] }).__pageshows
  }))
}

/** Why Chromium did not keep the page, as it says (printed where a restore was expected). */
async function notRestoredReasons (page: Page): Promise<string[]> {
  const reasons: string[] = []
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Page.enable')
  cdp.on('Page.backForwardCacheNotUsed', (event) => { reasons.push(...event.notRestoredExplanations.map((one) => one.reason)) })
  return reasons
}

/**
 * Goes back, and waits until the page is shown: a restore fires no load
 * event (Playwright's goBack waits for one by default), only a pageshow.
 */
async function goBack (page: Page): Promise<void> {
  await page.goBack({ waitUntil: 'commit' })
  await page.waitForFunction(() => document.readyState === 'complete' && ((window as unknown as { __pageshows?: boolean[] }).__pageshows ?? []).length > 0)
}

/** Leaves the page for another document of the same origin (the edge's 404 page), then goes back. */
async function leaveAndComeBack (page: Page, base: string): Promise<void> {
  await page.goto(`${base}/not-a-page`)
  await goBack(page)
}

async function startSite (t: Test): Promise<string> {
  const upstream = await startUpstream(t, answeringByPath(() => accountAnswers()))
  return (await startBuiltServer(t, { ACCOUNTS_URL: upstream.url, PASSKEYS: 'false', SECOND_FACTOR: 'false' })).base
}

t.test('the back/forward cache keeps the opening views but nothing typed into them, and never the visitor\'s own pages', { skip: browserSkip }, async (t) => {
  const base = await startSite(t)
  const browser = await launchBrowserWithBackForwardCache(t)

  async function pageIn (t: Test): Promise<Page> {
    const context = await browser.newContext()
    t.teardown(() => context.close())
    const page = await context.newPage()
    await recordPageshows(page)
    return page
  }

  await t.test('the login page comes back from the cache with no password, the form started afresh', async (t) => {
    const page = await pageIn(t)
    const reasons = await notRestoredReasons(page)
    await page.goto(`${base}/`)
    await waitForHydration(page)
    await page.getByLabel('Email', { exact: true }).fill('ana@example.test')
    await page.getByLabel('Password', { exact: true }).fill(SECRET)
    await leaveAndComeBack(page, base)
    t.same(await howItCame(page), RESTORED, `restored from the back/forward cache (Chromium's reasons if not: ${reasons.join(', ')})`)
    await waitForHydration(page)
    t.same(await passwordValues(page), [''], 'no password field holds a value')
    t.equal(await page.getByLabel('Email', { exact: true }).inputValue(), '', 'the form started afresh: not even the email is kept')
    t.notOk(await page.content().then((html) => html.includes(SECRET)), 'the password is nowhere in the document')
  })

  await t.test('attack: a password shown in plain text is emptied as the page is left, as a hidden one is', async (t) => {
    const page = await pageIn(t)
    await page.goto(`${base}/`)
    await waitForHydration(page)
    await page.getByLabel('Password', { exact: true }).fill(SECRET)
    await page.getByRole('button', { name: /show password/i }).click()
    t.equal(await page.getByLabel('Password', { exact: true }).getAttribute('type'), 'text', 'shown')
    // The page as the back/forward cache would keep it: what pagehide leaves.
    const left = await page.evaluate(() => {
      dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }))
      return [...document.querySelectorAll('input')].map((field) => field.value)
    })
    t.notOk(left.includes('a password typed 7'), 'no field holds the password')
  })

  await t.test('a sign-in made while away shows on the page that comes back', async (t) => {
    const page = await pageIn(t)
    await page.goto(`${base}/`)
    await waitForHydration(page)
    await page.goto(`${base}/not-a-page`)
    // As another tab's sign-in leaves it: the auth cookie.
    await page.context().addCookies([{ name: 'auth', value: authTokenFor('ana@example.test'), url: base }])
    await goBack(page)
    t.same(await howItCame(page), RESTORED, 'restored from the back/forward cache')
    await page.getByRole('heading', { name: 'You\'re signed in' }).waitFor()
    t.pass('the page checked again and shows the session')
  })

  await t.test('the account view is no-store, and once the session ends while away it does not come back', async (t) => {
    const page = await pageIn(t)
    await page.context().addCookies([{ name: 'auth', value: authTokenFor('ana@example.test'), url: base }])
    const answer = await page.goto(`${base}/?view=account`)
    t.equal(answer?.headers()['cache-control'], 'no-store')
    await waitForHydration(page)
    await page.goto(`${base}/not-a-page`)
    // The shared computer's case: signed out (the token cookies gone), then Back.
    await page.context().clearCookies()
    await goBack(page)
    t.not((await howItCame(page)).restored, true, 'not restored from the back/forward cache')
    t.notOk(await page.content().then((html) => html.includes('ana@example.test')), 'the account is nowhere on the page shown')
  })

  await t.test('a form post\'s answer is no-store, and whatever comes back on Back holds no password', async (t) => {
    const page = await pageIn(t)
    await page.goto(`${base}/`)
    await waitForHydration(page)
    await page.getByLabel('Email', { exact: true }).fill('ana@example.test')
    await page.getByLabel('Password', { exact: true }).fill(SECRET)
    // Posted as a page without scripts posts it (the scripts' own submit calls the service instead).
    const loaded = page.waitForEvent('load')
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().isNavigationRequest() && response.request().method() === 'GET'),
      page.locator('form:has(input[type="password"])').evaluate((form) => { HTMLFormElement.prototype.submit.call(form) })
    ])
    t.equal(answer.headers()['cache-control'], 'no-store', 'the page after the post (its flash) is no-store')
    await loaded
    await waitForHydration(page)
    await leaveAndComeBack(page, base)
    t.comment(`Chromium ${(await howItCame(page)).restored ? 'restored' : 'did not restore'} the no-store page (it may keep one while no cookie changes)`)
    await waitForHydration(page)
    t.same(await passwordValues(page), [''], 'no password field holds a value')
  })
})
