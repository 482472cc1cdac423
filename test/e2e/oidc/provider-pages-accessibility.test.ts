import type { Page } from 'playwright-core'
import t from 'tap'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { edgeWithPages, PROVIDER_PAGES } from '../../fixtures/oidc/provider-pages.js'

/*
 * The provider's pages as the edge renders them (server/edge/oidc/provider-page.ts),
 * in real Chromium: axe (WCAG 2.2 A/AA) on each, in English and Arabic (right
 * to left, from the request's ui_locales), at 1280×800 and 375×812, light
 * and dark; and each button reached by Tab and pressed by Enter, the form
 * posting what the provider reads. The edge is the real one, built, in front
 * of a stand-in reference service that answers each page.
 */

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const

/** The stand-in's failure page status: Chromium logs a document's 4xx as a console error. */
const EXPECTED_STATUSES = Object.values(PROVIDER_PAGES).map(({ status }) => status).filter((status) => status >= 400)

t.test('axe finds no WCAG 2.2 A/AA violation on any provider page, in English and Arabic, at both sizes, light and dark', { skip: browserSkip }, async (t) => {
  const { base } = await edgeWithPages(t)
  for (const locale of ['en', 'ar'] as const) {
    const { page, problems } = await openPage(t, { ...SIZES.desktop, reducedMotion: 'reduce' })
    for (const path of Object.keys(PROVIDER_PAGES)) {
      await page.goto(`${base}${path}?ui_locales=${locale}`)
      t.equal(await page.getAttribute('html', 'lang'), locale)
      t.ok(await page.evaluate(() => [...document.styleSheets].some((sheet) => sheet.href === null && [...sheet.cssRules].some((rule) => rule.cssText.includes('.card')))), `${path}: the page's CSS, inline`)
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport)
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme })
          t.same(await wcagViolations(page), [], `${path}, ${locale}, ${size}, ${colorScheme}`)
        }
      }
      await page.setViewportSize(SIZES.desktop)
    }
    t.same(unexpectedProblems(problems, EXPECTED_STATUSES), [], `${locale}: no CSP violation, no script error`)
  }
})

/** Tabs until the button named `name` has the focus (at most 10 presses), and says whether it got there. */
async function tabTo (page: Page, name: string): Promise<boolean> {
  const button = page.getByRole('button', { name, exact: true })
  for (let presses = 0; presses < 10; presses++) {
    await page.keyboard.press('Tab')
    if (await button.evaluate((element) => element === document.activeElement)) return true
  }
  return false
}

t.test('by keyboard alone, Tab reaches each button and Enter posts its answer', { skip: browserSkip }, async (t) => {
  const { base, upstream } = await edgeWithPages(t)
  const { page } = await openPage(t)
  const cases = [
    { path: '/oidc/interaction/uid-1', button: 'Allow', posted: '/oidc/interaction/uid-1/consent', body: { decision: 'allow' } },
    { path: '/oidc/interaction/uid-1', button: 'Deny', posted: '/oidc/interaction/uid-1/consent', body: { decision: 'deny' } },
    { path: '/oidc/session/end', button: 'Sign out', posted: '/oidc/session/end/confirm', body: { xsrf: 'xsrf-token-1', logout: 'yes' } },
    { path: '/oidc/session/end', button: 'Stay signed in', posted: '/oidc/session/end/confirm', body: { xsrf: 'xsrf-token-1' } }
  ]
  for (const { path, button, posted, body } of cases) {
    await page.goto(`${base}${path}?ui_locales=en`)
    t.ok(await tabTo(page, button), `${path}: Tab reaches "${button}"`)
    const before = upstream.requests.length
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')])
    const post = upstream.requests.slice(before).find((request) => request.method === 'POST')
    t.equal(post?.url, posted, `${button}: posted to the provider's path`)
    t.same(Object.fromEntries(new URLSearchParams(post?.body.toString() ?? '')), body, `${button}: the fields the provider reads`)
  }
})
