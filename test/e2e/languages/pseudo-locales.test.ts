import t from 'tap'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { pageFitProblems } from '../../fixtures/browsers/layout-fits.js'
import { unmarkedTexts } from '../../fixtures/languages/pseudo-marks.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

/*
 * The pseudo-locales in real Chromium (docs/languages.md, "Pseudo-locales"):
 * every text the views show is the catalogue's (accented and bracketed), the
 * views still fit when every text is 40 % longer, left to right and right to
 * left, and axe finds nothing.
 */

const VIEWS = ['login', 'register', 'resetPassword'] as const

t.test('the pseudo-locales show only the catalogue\'s texts, and every view still fits', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t, { PSEUDO_LOCALES: 'true' })
  for (const [locale, dir] of [['en-XA', 'ltr'], ['ar-XB', 'rtl']] as const) {
    for (const size of [{ width: 375, height: 812 }, { width: 1280, height: 800 }]) {
      const { page } = await openPage(t, size)
      for (const view of VIEWS) {
        const where = `${locale} ${view} at ${size.width} px`
        await page.goto(`${server.base}/?view=${view}&ui_locales=${locale}`)
        await waitForHydration(page)
        t.same(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]), [locale, dir], `${where}: <html lang dir>`)
        t.same(await unmarkedTexts(page), [], `${where}: every text is the catalogue's`)
        const fit = await pageFitProblems(page)
        t.ok(fit.checked > 0, `${where}: ${fit.checked} elements judged`)
        t.same(fit.problems, [], `${where}: nothing cut off or overlapping`)
        t.same(await wcagViolations(page), [], `${where}: axe finds nothing`)
      }
    }
  }
})

t.test('without PSEUDO_LOCALES a pseudo-locale is its language', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t)
  const { page } = await openPage(t)
  await page.goto(`${server.base}/?ui_locales=en-XA`)
  t.same(await page.evaluate(() => document.documentElement.lang), 'en')
})
