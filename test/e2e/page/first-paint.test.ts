import t from 'tap'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { SERVER_RENDERED_SIZES, SERVER_RENDERED_VIEWS } from '../../fixtures/page/server-rendered-views.js'

/**
 * The first paint waits for no stylesheet (docs/performance.md, "The page's
 * CSS, inline"): the opening views at both sizes and in both schemes, in real
 * Chromium, with the page's CSS applied from its inline `<style>`, nothing
 * render-blocking fetched, and no layout shift.
 */

/** The card's colours in each scheme: client/styles.css's --paper and --ink. */
const CARD_COLOURS = {
  light: { background: 'rgb(255, 255, 255)', text: 'rgb(22, 32, 44)' },
  dark: { background: 'rgb(25, 33, 44)', text: 'rgb(232, 237, 243)' }
} as const

t.test('the opening views paint from inline CSS, with no render-blocking stylesheet and no layout shift', { skip: browserSkip }, async (t) => {
  const { base } = await startBuiltServer(t)

  for (const size of SERVER_RENDERED_SIZES) {
    // One page per size, each view loaded in it afresh: a context each took some 5 s under load (tap allows 120 s a file).
    const { page, problems } = await openPage(t, { ...size, reducedMotion: 'reduce' })
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      for (const [name, path, heading] of SERVER_RENDERED_VIEWS.filter(([view]) => view !== 'setPassword')) {
        await t.test(`${name} at ${size.width}x${size.height}, ${colorScheme}`, async (t) => {
          await page.goto(`${base}${path}`)
          await waitForHydration(page)
          await page.waitForLoadState('networkidle')
          t.equal(await page.getByRole('heading', { level: 1 }).textContent(), heading)

          const seen = await page.evaluate(async () => {
            // Every shift since the first paint: a new observer is handed the buffered entries.
            const shift = await new Promise<number>((resolve) => {
              let sum = 0
              const observer = new PerformanceObserver((list) => {
                for (const entry of list.getEntries() as unknown as Array<{ value: number, hadRecentInput: boolean }>) {
                  if (!entry.hadRecentInput) sum += entry.value
                }
              })
              observer.observe({ type: 'layout-shift', buffered: true })
              // The buffered entries come in the observer's first callback, queued as a task: one later task sees them counted.
              setTimeout(() => { observer.disconnect(); resolve(sum) }, 100)
            })
            const blockingLinks = [...document.head.querySelectorAll('link[rel~="stylesheet"]')]
              .filter((link) => link.closest('noscript') === null && !link.hasAttribute('media'))
              .map((link) => link.getAttribute('href'))
            const blockingResources = (performance.getEntriesByType('resource') as Array<PerformanceResourceTiming & { renderBlockingStatus?: string }>)
              .filter((entry) => entry.renderBlockingStatus === 'blocking').map((entry) => entry.name)
            const card = getComputedStyle(document.querySelector('.card')!)
            return {
              shift,
              blockingLinks,
              blockingResources,
              inlineStyles: [...document.styleSheets].filter((sheet) => sheet.href === null && sheet.ownerNode?.parentNode === document.head).length,
              card: { background: card.backgroundColor, text: card.color, width: Math.round(document.querySelector('.card')!.getBoundingClientRect().width) }
            }
          })
          t.equal(seen.shift, 0, 'no layout shift (PerformanceObserver layout-shift, buffered)')
          t.same(seen.blockingLinks, [], 'no <link rel=stylesheet> in the head outside <noscript> and without media')
          t.same(seen.blockingResources, [], 'nothing the first paint waited for was fetched')
          t.equal(seen.inlineStyles, 1, 'the page\'s CSS, inline in the head')
          t.same({ background: seen.card.background, text: seen.card.text }, CARD_COLOURS[colorScheme], 'the card in the scheme\'s colours')
          if (size.width >= 512) t.equal(seen.card.width, 400, 'the card at --card-width')
          else t.ok(seen.card.width < size.width, `the card narrowed to the screen (${seen.card.width} px)`)
          t.same(problems, [], 'no console error, no CSP violation')
        })
      }
    }
  }
})
