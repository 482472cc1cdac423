import type { BrowserContext } from 'playwright-core'
import t from 'tap'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { english } from '../../fixtures/languages/messages.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { postJson } from '../../fixtures/http/post-json.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { addVirtualAuthenticator } from '../../fixtures/passkeys/virtual-authenticator.js'
import { withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'

/*
 * "Sign out of all other sessions" in real Chromium against the built
 * server with its embedded reference service, with Chromium's virtual
 * authenticator: two browser contexts are signed in to one account; in one,
 * the offer creates a passkey and its owner signs out of every other
 * session. The other context's refresh token (its HttpOnly cookie, read
 * through the DevTools protocol) is then refused when sent from Node.
 */

/** The `refresh` cookie a context holds for the page. */
async function refreshCookie (context: BrowserContext, base: string): Promise<string> {
  const cookie = (await context.cookies(`${base}/`)).find((candidate) => candidate.name === 'refresh')
  if (cookie === undefined) throw new Error('the context holds no refresh cookie')
  return cookie.value
}

t.test('after the offer\'s passkey, "Sign out of all other sessions" ends the other browser\'s session and keeps this one', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // The second factor is off: its offer would follow the other browser's "Not now" (the second-factor suite's subject).
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600', SECOND_FACTOR: 'false' })
  const { base } = server
  const target = `${base}/?redirect=${encodeURIComponent(`${product}/home`)}`
  await registerAccount(base, 'noa@example.test')

  // The other browser: signed in with the password, the passkey offer declined.
  const other = await openPage(t)
  await withoutPasskeyUpgrade(other.page)
  await other.page.goto(target)
  await signInOnPage(other.page, 'noa@example.test')
  await other.page.getByRole('button', { name: english('passkey.notNow') }).click({ timeout: 10_000 })
  await other.page.waitForURL(`${product}/home`)
  const othersRefresh = await refreshCookie(other.context, base)

  // This browser: signed in, the offer creates a passkey, and the card offers to sign out elsewhere.
  const { page, context, problems } = await openPage(t)
  const authenticator = await addVirtualAuthenticator(page)
  await withoutPasskeyUpgrade(page)
  await page.goto(target)
  await signInOnPage(page, 'noa@example.test')
  await page.getByRole('button', { name: english('passkey.create') }).click({ timeout: 10_000 })
  await page.getByRole('heading', { name: english('passkey.offerCreated') }).waitFor()
  t.equal((await authenticator.credentials()).length, 1, 'the passkey is on the authenticator')
  const ended = page.waitForResponse((response) => new URL(response.url()).pathname === '/accounts/sessions/end-others')
  await page.getByRole('button', { name: english('otherSessions.endOthers') }).click()
  t.equal((await ended).status(), 200)
  await page.getByRole('status').filter({ hasText: /signed out of all other sessions/ }).waitFor()
  t.same(await wcagViolations(page), [], 'the card with its confirmation')

  const refused = await postJson(base, '/accounts/token/refresh', { refresh: othersRefresh })
  t.equal(refused.status, 401, 'the other browser\'s refresh token is refused')
  const kept = await postJson(base, '/accounts/token/refresh', { refresh: await refreshCookie(context, base) })
  t.equal(kept.status, 200, 'this browser\'s session goes on')

  await page.getByRole('button', { name: english('passkey.offerContinue') }).click()
  await page.waitForURL(`${product}/home`)
  t.same(unexpectedProblems(problems, []), [], 'no console errors and no CSP violations')
})
