import type { Page } from 'playwright-core'
import t from 'tap'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { layoutProblems } from '../../fixtures/browsers/layout-fits.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

/*
 * The pseudo-locales in real Chromium (docs/languages.md, "Pseudo-locales"):
 * every text the views show is the catalogue's (accented and bracketed), the
 * views still fit when every text is 40 % longer, left to right and right to
 * left, and axe finds nothing.
 */

const VIEWS = ['login', 'register', 'resetPassword'] as const

/** Letters the pseudo-locales write (server/edge/languages/pseudo-locales.ts): a text with one came from the catalogue. */
const PSEUDO_MARK = /[àƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ[\]]/

/** What the page shows that is not a text of the catalogue: the operator's product name and support address, and nothing but digits and signs. */
const NOT_A_TEXT = /^(?:Threshold|[^\s@]+@[^\s@]+|[\d\s\p{P}\p{S}]*)$/u

/** Every visible text of the page that carries no pseudo-locale mark: a text not in the catalogue. */
async function unmarkedTexts (page: Page): Promise<string[]> {
  const texts = await page.evaluate(() => {
    const found: string[] = []
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement
      const text = (node.textContent ?? '').trim()
      if (parent === null || text === '' || parent.closest('script, style, noscript, template, [hidden]') !== null) continue
      const box = parent.getBoundingClientRect()
      const style = getComputedStyle(parent)
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue
      found.push(text)
    }
    // What a screen reader hears besides: labels and names held in attributes.
    for (const element of document.querySelectorAll('[aria-label], [placeholder], img[alt], [title]')) {
      for (const name of ['aria-label', 'placeholder', 'alt', 'title']) {
        const value = element.getAttribute(name)?.trim()
        if (value !== undefined && value !== '') found.push(value)
      }
    }
    return found
  })
  return texts.filter((text) => !PSEUDO_MARK.test(text) && !NOT_A_TEXT.test(text))
}

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
        t.same(await layoutProblems(page), [], `${where}: nothing cut off or overlapping`)
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
