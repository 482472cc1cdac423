import { mkdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t from 'tap'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { formatMessage } from '../../../common/languages/message-format.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'

const SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url))
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const

/** A shipped catalogue as the page receives it, read from the source (the test checks what a visitor reads). */
function catalogue (locale: string): (key: MessageKey, params?: Record<string, string>) => string {
  const texts = JSON.parse(readFileSync(new URL(`../../../common/messages/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>
  return (key, params) => formatMessage(texts[key]!, params, locale)
}
const de = catalogue('de')
const ar = catalogue('ar')
const fr = catalogue('fr')
const en = catalogue('en')

async function language (page: Page): Promise<{ lang: string | null, dir: string | null }> {
  return page.evaluate(() => ({ lang: document.documentElement.getAttribute('lang'), dir: document.documentElement.getAttribute('dir') }))
}

/** The field's box and its label's text (not the label's box, which may span the row), in page pixels. */
async function fieldAndLabelText (page: Page, label: string) {
  return page.getByLabel(label, { exact: true }).evaluate((input) => {
    const box = (rect: DOMRect) => ({ left: rect.left, right: rect.right })
    const text = document.createRange()
    text.selectNodeContents((input as HTMLInputElement).labels![0]!)
    return { field: box(input.getBoundingClientRect()), label: box(text.getBoundingClientRect()) }
  })
}

/*
 * Languages, right to left and the visitor's dark scheme in real Chromium. An
 * operator's brand and THEME are brands.test.ts's (together they took 72 s of
 * tap's 120 s in CI).
 */
t.test('languages, right to left and the dark scheme in real Chromium', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // Passkeys and the second factor off: a password sign-in ends at its redirect (their offers are other suites' subjects).
  const server = await startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'false', REDIRECT_ALLOWED_HOSTS: '127.0.0.1' })
  const { base } = server
  mkdirSync(SCREENSHOTS, { recursive: true })

  await t.test('a visitor who asks for German registers and logs in in German', async (t) => {
    // Chromium says English; the address asks for German (ui_locales wins), and switching views keeps it.
    const { page, context, problems } = await openPage(t, { locale: 'en-US' })
    await page.goto(`${base}/?ui_locales=de-AT%20en&redirect=${encodeURIComponent(`${product}/willkommen`)}`)
    t.same(await language(page), { lang: 'de', dir: 'ltr' })
    t.equal(await page.title(), de('page.title', { heading: de('heading.login'), product: 'Threshold' }))
    await waitForHydration(page)
    await page.getByRole('link', { name: de('login.signUpLink'), exact: true }).click()
    await page.getByRole('heading', { name: de('heading.register') }).waitFor()
    t.match(page.url(), /ui_locales=de-AT(%20|\+)en/, 'the view link keeps ui_locales')
    await page.getByLabel(de('field.companyEmail'), { exact: true }).fill('jonas@example.test')
    await page.getByLabel(de('field.password'), { exact: true }).fill('ein gutes langes Passwort')
    await page.getByLabel(de('field.confirmPassword'), { exact: true }).fill('ein gutes langes Passwort')
    await page.getByRole('button', { name: de('register.submit'), exact: true }).click()
    await page.getByRole('status').waitFor()
    // Back on the login view (the registration ends there), still in German.
    await page.getByRole('heading', { name: de('heading.login') }).waitFor()
    await page.getByLabel(de('field.password'), { exact: true }).fill('ein gutes langes Passwort')
    await page.getByRole('button', { name: de('login.submit'), exact: true }).click()
    await page.waitForURL(`${product}/willkommen`)
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in: the auth cookie is set')
    t.same(problems, [], 'no console errors and no CSP violations')
  })

  await t.test('a visitor whose browser speaks Arabic logs in right to left', async (t) => {
    const { page, context, problems } = await openPage(t, { locale: 'ar-EG' })
    await page.goto(`${base}/?redirect=${encodeURIComponent(`${product}/marhaban`)}`)
    t.same(await language(page), { lang: 'ar', dir: 'rtl' })
    t.equal(await page.title(), ar('page.title', { heading: ar('heading.login'), product: 'Threshold' }))
    const { field, label } = await fieldAndLabelText(page, ar('field.email'))
    // Right to left: the label's text starts at the field's right edge, and ends well short of its left one.
    t.ok(Math.abs(label.right - field.right) <= 20, `the label starts at the field's right edge (label's text ends at ${label.right}, field at ${field.right})`)
    t.ok(label.left > field.left + 40, `the label is not at the left edge (label's text from ${label.left}, field from ${field.left})`)
    const email = page.getByLabel(ar('field.email'), { exact: true })
    t.equal(await email.evaluate((input) => getComputedStyle(input).direction), 'ltr', 'the email field stays left to right')
    t.equal(await page.getByLabel(ar('field.password'), { exact: true }).evaluate((input) => getComputedStyle(input).direction), 'ltr', 'so does the password field')
    const submit = await page.getByRole('button', { name: ar('login.submit'), exact: true }).boundingBox()
    const form = await page.locator('form').first().boundingBox()
    t.ok(submit!.x + submit!.width <= form!.x + form!.width + 1 && submit!.x >= form!.x - 1, 'the button stays inside the form')
    await waitForHydration(page)
    await email.fill('jonas@example.test')
    await page.getByLabel(ar('field.password'), { exact: true }).fill('ein gutes langes Passwort')
    await page.getByRole('button', { name: ar('login.submit'), exact: true }).click()
    await page.waitForURL(`${product}/marhaban`)
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in: the auth cookie is set')
    t.same(problems, [], 'no console errors and no CSP violations')
  })

  await t.test('ui_locales comes before Accept-Language, which comes before DEFAULT_LOCALE', async (t) => {
    const german = await openPage(t, { locale: 'de-DE' })
    await german.page.goto(`${base}/`)
    t.equal((await language(german.page)).lang, 'de', 'Accept-Language: de-DE')
    t.ok(await german.page.getByRole('button', { name: de('login.submit'), exact: true }).isVisible())
    await german.page.goto(`${base}/?ui_locales=fr-CA%20ja`)
    t.equal((await language(german.page)).lang, 'fr', 'ui_locales: the first supported wins over Accept-Language')
    t.ok(await german.page.getByRole('button', { name: fr('login.submit'), exact: true }).isVisible())
    await german.page.goto(`${base}/?ui_locales=xx-unknown%20%3Cscript%3E`)
    t.equal((await language(german.page)).lang, 'de', 'an unknown or malformed ui_locales falls back to Accept-Language')
    const elsewhere = await openPage(t, { locale: 'sw-KE' })
    await elsewhere.page.goto(`${base}/`)
    t.equal((await language(elsewhere.page)).lang, 'en', 'neither: DEFAULT_LOCALE (en)')
    t.ok(await elsewhere.page.getByRole('button', { name: en('login.submit'), exact: true }).isVisible())
    t.same([...german.problems, ...elsewhere.problems], [], 'no console errors and no CSP violations')
  })

  await t.test('English, German and Arabic pass axe in light and dark, at both sizes; Arabic and dark have screenshots', async (t) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [size, viewport] of Object.entries(SIZES)) {
        // Reduced motion: the poster instead of the video, so screenshots are stable.
        const { page, problems } = await openPage(t, { ...viewport, colorScheme, reducedMotion: 'reduce' })
        for (const locale of ['en', 'de', 'ar']) {
          // The login view in every pairing; the register view's longer form in Arabic, the one laid out right to left.
          for (const view of locale === 'ar' ? ['login', 'register'] : ['login']) {
            await page.goto(`${base}/?ui_locales=${locale}&view=${view}`)
            await waitForHydration(page)
            t.same(await wcagViolations(page), [], `${view} in ${locale}, ${colorScheme}, ${size}`)
          }
          await page.goto(`${base}/?ui_locales=${locale}`)
          await waitForHydration(page)
          if (locale === 'ar' && colorScheme === 'light') await page.screenshot({ path: `${SCREENSHOTS}login-ar-${size}.png`, fullPage: true })
          if (locale === 'en' && colorScheme === 'dark') await page.screenshot({ path: `${SCREENSHOTS}login-dark-${size}.png`, fullPage: true })
        }
        t.same(problems, [], `no console errors and no CSP violations (${colorScheme}, ${size})`)
      }
    }
  })
})
