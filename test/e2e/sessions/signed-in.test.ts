import { readFileSync } from 'node:fs'
import t from 'tap'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { postJson } from '../../fixtures/http/post-json.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

/*
 * The signed-in state (docs/page.md, "A visitor who is signed in already") in
 * real Chromium against the built server: a login without a `redirect` lands
 * on the site's origin, which is the page, and the page says so; "Sign out"
 * ends the session at the reference service. The offers after a password
 * sign-in are off (PASSKEYS, SECOND_FACTOR) so that the login leaves at once.
 */

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const

/** A shipped catalogue's texts, as the page in that language shows them. */
function catalogue (locale: 'en' | 'ar'): (key: MessageKey, email?: string) => string {
  const texts = JSON.parse(readFileSync(new URL(`../../../common/messages/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>
  return (key, email = '') => texts[key]!.replace('{email}', email)
}

t.test('signed in, the page opened without a redirect says as whom, and "Sign out" ends the session', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'false' })
  const email = 'lin@example.test'
  await registerAccount(server.base, email)

  for (const [locale, browserLocale] of [['en', 'en-US'], ['ar', 'ar-EG']] as const) {
    await t.test(`${locale}: after a login without a redirect, axe at both sizes, light and dark`, async (t) => {
      const say = catalogue(locale)
      const { page, problems } = await openPage(t, { ...SIZES.desktop, locale: browserLocale, reducedMotion: 'reduce' })
      await page.goto(server.base)
      await page.getByLabel(say('field.email'), { exact: true }).fill(email)
      await page.getByLabel(say('field.password'), { exact: true }).fill(GOOD_PASSWORD)
      await page.getByRole('button', { name: say('login.submit'), exact: true }).click()
      const heading = page.getByRole('heading', { name: say('signedIn.heading') })
      await heading.waitFor({ timeout: 10_000 })
      t.equal(new URL(page.url()).pathname, '/', 'landed on the page itself')
      t.ok(await heading.evaluate((element) => element === document.activeElement), 'focus on the heading')
      t.ok(await page.getByText(say('signedIn.as', email)).isVisible(), 'whom')
      t.equal(await page.getByRole('button', { name: say('login.submit'), exact: true }).count(), 0, 'no login form')
      t.equal(await page.evaluate(() => document.documentElement.dir), locale === 'ar' ? 'rtl' : 'ltr')
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport)
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme })
          t.same(await wcagViolations(page), [], `${locale}, ${size}, ${colorScheme}: the signed-in state`)
        }
      }
      t.same(unexpectedProblems(problems, []), [])
    })
  }

  await t.test('"Sign out": the refresh token is revoked, both cookies go, the login form says so', async (t) => {
    const { page, context, problems } = await openPage(t)
    await page.goto(server.base)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.getByRole('button', { name: catalogue('en')('signedIn.signOut') }).waitFor({ timeout: 10_000 })
    const refresh = (await context.cookies()).find((cookie) => cookie.name === 'refresh')?.value
    t.ok(refresh, 'a refresh cookie while signed in')
    await page.getByRole('button', { name: catalogue('en')('signedIn.signOut') }).click()
    await page.getByText(catalogue('en')('signedIn.signedOut')).waitFor()
    t.ok(await page.getByRole('button', { name: 'Login', exact: true }).isVisible(), 'the login form')
    t.same((await context.cookies()).filter((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), [], 'no token cookie left')
    const refreshed = await postJson(server.base, '/accounts/token/refresh', { refresh })
    t.equal(refreshed.status >= 400 && refreshed.status < 500, true, `the old refresh token is refused (${refreshed.status})`)
    await page.reload()
    t.ok(await page.getByRole('button', { name: 'Login', exact: true }).isVisible(), 'and after a reload, the login form')
    t.same(unexpectedProblems(problems, []), [])
  })
})
