import type { Page } from 'playwright-core'
import t from 'tap'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { SERVER_RENDERED_SIZES, SERVER_RENDERED_VIEWS } from '../../fixtures/page/server-rendered-views.js'

/**
 * The view in the HTML (docs/page.md, "Before its JavaScript") in real
 * Chromium with scripts on: each view hydrates with no console error, no CSP
 * violation and no layout shift, and passes axe, at both sizes. Scripts off is
 * server-rendered-without-scripts.test.ts (one file took 100 s of tap's 120 s
 * under load on two cores; the halves run side by side).
 */

/** Sums every layout shift from the first paint on (hadRecentInput: none here, the test does not type). */
async function watchLayoutShifts (page: Page): Promise<void> {
  await page.addInitScript(() => {
    const shifts = { sum: 0 }
    ;(window as unknown as { layoutShifts: typeof shifts }).layoutShifts = shifts
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as Array<{ value: number, hadRecentInput: boolean }>) {
        if (!entry.hadRecentInput) shifts.sum += entry.value
      }
    }).observe({ type: 'layout-shift', buffered: true })
  })
}

t.test('the server-rendered page in real Chromium, scripts on', { skip: browserSkip }, async (t) => {
  const { base } = await startBuiltServer(t)

  for (const size of SERVER_RENDERED_SIZES) {
    for (const [name, path, heading] of SERVER_RENDERED_VIEWS) {
      await t.test(`${name} at ${size.width}x${size.height}, scripts on: hydrates with no error, no CSP violation, no shift; axe 0`, async (t) => {
        const { page, problems } = await openPage(t, { ...size, reducedMotion: 'reduce' })
        await watchLayoutShifts(page)
        const response = await page.goto(`${base}${path}`)
        // Chromium asks for gzip, deflate, br and zstd: a page kept compressed comes brotli, and hydrates from it; one whose
        // address holds a token (setPassword's) is never kept, and is gzipped for its one answer (server/edge/page/page-answer.ts).
        const expected = path.includes('token=') ? 'gzip' : 'br'
        t.equal((await response?.allHeaders())?.['content-encoding'], expected, `the page came ${expected}-compressed`)
        await waitForHydration(page)
        await page.waitForLoadState('networkidle')
        t.equal(await page.getByRole('heading', { level: 1 }).textContent(), heading)
        const shift = await page.evaluate(() => (window as unknown as { layoutShifts: { sum: number } }).layoutShifts.sum)
        t.equal(shift, 0, 'no layout shift (PerformanceObserver layout-shift sum)')
        t.same(await wcagViolations(page), [])
        t.same(problems, [], 'no console error, no CSP violation')
      })
    }
  }
})
