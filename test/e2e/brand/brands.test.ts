import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { formatMessage } from '../../../common/languages/message-format.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

/*
 * An operator's brand (logo, colours) and a forced THEME in real Chromium,
 * each on a built server of its own. Languages and the visitor's own scheme
 * are languages.test.ts's.
 */

/** The English catalogue as the page receives it, read from the source (the test checks what a visitor reads). */
const texts = JSON.parse(readFileSync(new URL('../../../common/messages/en.json', import.meta.url), 'utf8')) as Record<string, string>
const en = (key: MessageKey, params?: Record<string, string>): string => formatMessage(texts[key]!, params)

/** Relative luminance of a computed `rgb(...)` colour (WCAG 2.x). */
function luminance (rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number).map((channel) => {
    const value = channel / 255
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

t.test('an operator\'s logo, colour and forced dark scheme in real Chromium', { skip: browserSkip }, async (t) => {
  const files = mkdtempSync(join(tmpdir(), 'threshold-brand-'))
  t.teardown(() => rmSync(files, { recursive: true, force: true }))
  const logo = join(files, 'acme.svg')
  writeFileSync(logo, '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32"><rect width="120" height="32" rx="6" fill="#0b5394"/></svg>')
  const branded = await startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'false', BRAND_LOGO: logo, BRAND_LOGO_ALT: 'Acme', BRAND_COLOR: '#0b5394', BRAND_COLOR_DARK: '#8ab4f8', BRAND_TEXT_COLOR: '#ffffff' })

  for (const colorScheme of ['light', 'dark'] as const) {
    const { page, problems } = await openPage(t, { colorScheme, reducedMotion: 'reduce' })
    await page.goto(`${branded.base}/`)
    await waitForHydration(page)
    const image = page.getByRole('img', { name: 'Acme' })
    t.ok(await image.evaluate((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0), `the logo loads (${colorScheme})`)
    const button = await page.getByRole('button', { name: en('login.submit'), exact: true }).evaluate((element) => getComputedStyle(element).backgroundColor)
    t.equal(button, colorScheme === 'light' ? 'rgb(11, 83, 148)' : 'rgb(138, 180, 248)', `the login button takes the brand colour (${colorScheme})`)
    t.same(await wcagViolations(page), [], `the branded page passes axe (${colorScheme})`)
    t.same(problems, [], `no console errors and no CSP violations (${colorScheme})`)
  }

  const forced = await startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'false', THEME: 'dark' })
  const { page } = await openPage(t, { colorScheme: 'light', reducedMotion: 'reduce' })
  await page.goto(`${forced.base}/`)
  const background = await page.locator('form').first().evaluate((form) => {
    let element: Element | null = form
    while (element !== null && getComputedStyle(element).backgroundColor === 'rgba(0, 0, 0, 0)') element = element.parentElement
    return element === null ? 'rgb(255, 255, 255)' : getComputedStyle(element).backgroundColor
  })
  t.ok(luminance(background) < 0.2, `THEME=dark: the card is dark although the browser prefers light (${background})`)
})
