import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { withoutAutofill, withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { addVirtualAuthenticator } from '../../fixtures/passkeys/virtual-authenticator.js'

/*
 * axe (WCAG 2.2 A/AA) on the passkey button and on the offer after a password
 * sign-in, in real Chromium with the virtual authenticator, against the built
 * server configured as passkeys.test.ts's journeys are.
 */
t.test('axe finds no WCAG 2.2 A/AA violation on the passkey button nor on the offer, at both sizes', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const { base } = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', UNAUTHORIZED_DOMAINS: 'blocked.test', RATE_LIMIT_PER_MINUTE: '600', SECOND_FACTOR: 'false' })
  const target = `${base}/?redirect=${encodeURIComponent(`${product}/home`)}`
  const signIn = async (size: { width: number, height: number }) => {
    const opened = await openPage(t, size)
    await addVirtualAuthenticator(opened.page)
    await withoutPasskeyUpgrade(opened.page)
    return opened
  }

  // One account for both (registrations are rate limited): each size opens a fresh browser context, with no passkey on it.
  const email = 'kim@example.test'
  await registerAccount(base, email)
  for (const [name, size] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 375, height: 812 }]] as const) {
    const { page } = await signIn(size)
    await withoutAutofill(page)
    await page.goto(target)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()
    t.same(await wcagViolations(page), [], `${name}: the login view with the passkey button`)
    await signInOnPage(page, email)
    await page.getByRole('heading', { name: english('passkey.offerHeading') }).waitFor({ timeout: 10_000 })
      .catch(async (error: unknown) => {
        t.comment(`no offer: at ${page.url()}, notice ${JSON.stringify(await page.locator('#form-notice').textContent().catch(() => null))}`)
        throw error
      })
    t.same(await wcagViolations(page), [], `${name}: the offer`)
  }
})
