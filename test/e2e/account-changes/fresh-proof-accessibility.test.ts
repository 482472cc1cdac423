import { readFileSync } from 'node:fs'
import t from 'tap'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { PASSKEY_OFFER_DECLINED_KEY } from '../../../client/passkeys/passkey-timing.js'
import { REMEMBERED_BROWSER_COOKIE } from '../../../server/reference/second-factor/remembered-browser-cookie.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { enrolFromOffer, verifyRememberingBrowser } from '../../fixtures/second-factor/second-factor-page.js'
import { addVirtualAuthenticator } from '../../fixtures/passkeys/virtual-authenticator.js'
import { withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'

/*
 * axe (WCAG 2.2 A/AA) on "Confirm it's you" in real Chromium, in English and
 * in Arabic (right to left), at 1280×800 and 375×812, light and dark, and
 * with a wrong password's refusal shown; against the built server configured
 * as fresh-proof.test.ts's journeys are. The step is reached as there: the
 * passkey offer after a password sign-in, with the sign-in's proof deleted.
 * Its form for an account with an authenticator app (the password and a
 * code) is checked too, at one size, in a browser remembered for that account.
 */

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const

/** A shipped catalogue's texts, as the page in that language shows them. */
function catalogue (locale: 'en' | 'ar'): (key: MessageKey) => string {
  const texts = JSON.parse(readFileSync(new URL(`../../../common/messages/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>
  return (key) => texts[key]!
}

t.test('axe finds no WCAG 2.2 A/AA violation on Confirm it\'s you, in English and Arabic, at both sizes, light and dark', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const { base } = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600' })
  const target = `${base}/?redirect=${encodeURIComponent(`${product}/home`)}`
  // One account for both languages (registrations are rate limited): each opens a fresh browser context.
  const email = 'noor@example.test'
  await registerAccount(base, email)
  // An account with an authenticator app, and the cookie of a browser remembered for it: its password sign-in skips the code.
  const withApp = 'zoe@example.test'
  await registerAccount(base, withApp)
  const rememberedBrowser = await (async () => {
    const { page, context } = await openPage(t)
    await page.addInitScript((key) => localStorage.setItem(key, String(Date.now() + 86_400_000)), PASSKEY_OFFER_DECLINED_KEY)
    await page.goto(target)
    await signInOnPage(page, withApp)
    const { recoveryCodes } = await enrolFromOffer(page)
    await page.waitForURL(`${product}/home`)
    await page.goto(target)
    await signInOnPage(page, withApp)
    await verifyRememberingBrowser(page, recoveryCodes[0]!)
    await page.waitForURL(`${product}/home`)
    return (await context.cookies()).find((cookie) => cookie.name === REMEMBERED_BROWSER_COOKIE)!
  })()

  for (const [locale, browserLocale] of [['en', 'en-US'], ['ar', 'ar-EG']] as const) {
    const say = catalogue(locale)
    const { page, context } = await openPage(t, { ...SIZES.desktop, locale: browserLocale, reducedMotion: 'reduce' })
    await addVirtualAuthenticator(page)
    await withoutPasskeyUpgrade(page)
    await page.goto(target)
    t.equal(await page.evaluate(() => document.documentElement.lang), locale, `${locale}: the page speaks it`)
    await page.getByLabel(say('field.email'), { exact: true }).fill(email)
    await page.getByLabel(say('field.password'), { exact: true }).fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: say('login.submit'), exact: true }).click()
    await page.getByRole('button', { name: say('passkey.create') }).waitFor({ timeout: 10_000 })
    await context.clearCookies({ name: 'threshold_proof' })
    await page.getByRole('button', { name: say('passkey.create') }).click()
    await page.getByRole('heading', { name: say('freshProof.heading') }).waitFor()

    const backgrounds = new Set<string>()
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport)
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme })
        backgrounds.add(await page.locator('.card').evaluate((card) => getComputedStyle(card).backgroundColor))
        t.same(await wcagViolations(page), [], `${locale}, ${size}, ${colorScheme}: the step`)
      }
    }
    t.equal(backgrounds.size, 2, `${locale}: the card is drawn in two schemes (${[...backgrounds].join(', ')})`)

    await page.setViewportSize(SIZES.desktop)
    await page.emulateMedia({ colorScheme: 'light' })
    await page.getByLabel(say('field.password'), { exact: true }).fill('not the password at all')
    await page.getByRole('button', { name: say('freshProof.confirm'), exact: true }).click()
    await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor()
    t.comment(`${locale}: the refusal says ${JSON.stringify(await page.getByRole('alert').filter({ hasText: /\S/ }).textContent())}`)
    t.same(await wcagViolations(page), [], `${locale}: the step with a wrong password's refusal`)

    await context.addCookies([rememberedBrowser])
    await page.goto(target)
    await page.getByLabel(say('field.email'), { exact: true }).fill(withApp)
    await page.getByLabel(say('field.password'), { exact: true }).fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: say('login.submit'), exact: true }).click()
    await page.getByRole('button', { name: say('passkey.create') }).waitFor({ timeout: 10_000 })
    await context.clearCookies({ name: 'threshold_proof' })
    await page.getByRole('button', { name: say('passkey.create') }).click()
    await page.getByText(say('freshProof.passwordAndCode')).waitFor()
    t.same(await wcagViolations(page), [], `${locale}: the step asking for the password and a code`)
    await page.getByLabel(say('field.password'), { exact: true }).fill('not the password at all')
    await page.getByRole('textbox', { name: say('secondFactor.codeLabel'), exact: true }).fill('000000')
    await page.getByRole('button', { name: say('freshProof.confirm'), exact: true }).click()
    await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor()
    t.comment(`${locale}: the refusal says ${JSON.stringify(await page.getByRole('alert').filter({ hasText: /\S/ }).textContent())}`)
    t.same(await wcagViolations(page), [], `${locale}: the password and code step with a refusal`)
  }
})
