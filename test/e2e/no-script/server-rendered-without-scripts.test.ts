import { readFileSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, launchBrowser } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { SERVER_RENDERED_SIZES, SERVER_RENDERED_VIEWS } from '../../fixtures/page/server-rendered-views.js'

/**
 * The view in the HTML (docs/page.md, "Before its JavaScript") in real
 * Chromium with scripts off: each view's form is there and submits, and the
 * page passes axe as such a browser builds it, at both sizes; what needs
 * scripts says so. Scripts on is server-rendered-with-scripts.test.ts.
 */

/**
 * The stylesheet's own rules for a page without scripts, unwrapped from their
 * `@media (scripting: none)`: Playwright's emulateMedia does not take that
 * feature and axe needs scripts on, so the stylesheet's rules are applied as
 * written there rather than copied into the test.
 */
const NO_SCRIPT_RULES = (() => {
  const stylesheet = readFileSync(new URL('../../../client/styles.css', import.meta.url), 'utf8')
  const rules = [...stylesheet.matchAll(/@media \(scripting: none\) \{(.*)\}\s*$/gm)].map((match) => match[1]!.trim())
  if (rules.length === 0) throw new Error('client/styles.css has no @media (scripting: none) rule on one line')
  return rules.join('\n')
})()

/**
 * axe on the page as a browser without scripts builds it. axe is a script, and
 * Chromium runs none in such a page: the DOM it parsed (noscript content as
 * elements), taken from that page, is shown again, its noscript tags and module
 * script taken out and `@media (scripting: none)`'s rules applied
 * (NO_SCRIPT_RULES), in a page where axe can run.
 */
async function noScriptViolations (t: Test, browser: Browser, withoutScripts: Page, size: { width: number, height: number }): Promise<string[]> {
  const parsed = await withoutScripts.content()
  const url = withoutScripts.url()
  const context = await browser.newContext({ viewport: size, reducedMotion: 'reduce' })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const asParsed = `${new URL(url).origin}/as-parsed-without-scripts`
  await page.route(asParsed, (route) => route.fulfill({
    contentType: 'text/html',
    body: parsed.replace(/<\/?noscript>/g, '').replace(/<script type="module"[^>]*><\/script>/g, '')
      .replace('</head>', `<style>${NO_SCRIPT_RULES}</style></head>`)
  }))
  await page.goto(asParsed)
  return wcagViolations(page)
}

t.test('the server-rendered page in real Chromium, scripts off', { skip: browserSkip }, async (t) => {
  const { base } = await startBuiltServer(t)

  for (const size of SERVER_RENDERED_SIZES) {
    for (const [name, path, heading] of SERVER_RENDERED_VIEWS) {
      await t.test(`${name} at ${size.width}x${size.height}, scripts off: the form is there and submits; axe 0`, async (t) => {
        const browser = await launchBrowser(t)
        const context = await browser.newContext({ viewport: size, javaScriptEnabled: false, reducedMotion: 'reduce' })
        t.teardown(() => context.close())
        const page = await context.newPage()
        await page.goto(`${base}${path}`)
        t.equal(await page.getByRole('heading', { level: 1 }).textContent(), heading)
        const form = page.locator('main form[method="post"]').first()
        t.equal(await form.getAttribute('action'), null, 'posts to the page\'s own address')
        t.equal(await form.locator('input[type="hidden"][name="form"]').getAttribute('value'), name)
        t.ok(await form.locator('button[type="submit"]').isEnabled(), 'its button works without scripts')
        t.same(await noScriptViolations(t, browser, page, size), [])
      })
    }
  }

  await t.test('scripts off: what needs them shows a note, and SSO is a small form', async (t) => {
    const browser = await launchBrowser(t)
    const context = await browser.newContext({ javaScriptEnabled: false })
    t.teardown(() => context.close())
    const page = await context.newPage()
    await page.goto(`${base}/`)
    const scripted = page.locator('.needs-script button')
    t.ok(await scripted.count() > 0, 'the page has buttons that need scripts')
    for (const button of await scripted.all()) t.notOk(await button.isVisible(), `${await button.textContent()}: hidden`)
    await page.locator('summary', { hasText: 'Login with Custom SSO provider' }).click()
    const sso = page.locator('form:has(input[name="form"][value="sso"])')
    t.ok(await sso.getByLabel('Email').isVisible(), 'the SSO disclosure opens on its email field')
  })
})
