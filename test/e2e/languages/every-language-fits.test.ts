import t from 'tap'
import { LOCALES } from '../../../common/languages/message-catalogue.js'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { pageFitProblems } from '../../fixtures/browsers/layout-fits.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

/*
 * Every shipped language's opening views on a phone (375×812, where a long
 * word has least room), in real Chromium: nothing cut off or overlapping. The
 * longest language and Hebrew are walked through every view and step, with
 * axe, by every-view-fits.test.ts; this one catches the word that is long in
 * one language only (a Finnish compound, a German noun) where it shows first.
 */

const VIEWS = ['login', 'register', 'resetPassword'] as const

t.test('every language\'s opening views fit on a phone', { skip: browserSkip }, async (t) => {
  const started = performance.now()
  const server = await startBuiltServer(t)
  const { page } = await openPage(t, { width: 375, height: 812 })
  const problems: string[] = []
  for (const locale of LOCALES) {
    for (const view of VIEWS) {
      await page.goto(`${server.base}/?view=${view}&ui_locales=${locale}`)
      await waitForHydration(page)
      const fit = await pageFitProblems(page)
      // A page in another language, or one that showed nothing, would fit too: each is checked to be this one.
      const lang = await page.evaluate(() => document.documentElement.lang)
      if (lang !== locale || fit.checked === 0) problems.push(`${locale} ${view}: the page is in "${lang}", with ${fit.checked} elements to judge`)
      problems.push(...fit.problems.map((problem) => `${locale} ${view}: ${problem}`))
    }
  }
  t.same(problems, [], `${LOCALES.length} languages × ${VIEWS.length} views fit at 375 px`)
  t.comment(`${LOCALES.length * VIEWS.length} pages in ${((performance.now() - started) / 1000).toFixed(1)} s`)
})
