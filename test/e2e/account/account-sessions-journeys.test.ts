import t from 'tap'
import { cookieValue, openAccountView, refreshStatus, signedInBrowser } from '../../fixtures/account/account-browser.js'
import { browserSkip, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { english } from '../../fixtures/languages/messages.js'
import { postJson } from '../../fixtures/http/post-json.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'

/*
 * "Where you're signed in" in real Chromium against the built server and
 * its embedded reference service: two browser contexts signed in to one
 * account, the first ending the second's session from the account view;
 * and the sign-out URL a product links to (`?view=logout&redirect=…`).
 */

t.test('the account view\'s sessions in real Chromium against the built server', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // Passkeys and the second factor off: each password sign-in ends at its redirect, without an offer.
  const { base } = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', PASSKEYS: 'false', SECOND_FACTOR: 'false', RATE_LIMIT_PER_MINUTE: '600' })

  await t.test('the first browser lists both sessions, "This browser" on its own, and signs the second out: its refresh fails at once', async (t) => {
    await registerAccount(base, 'sana@example.test')
    const first = await signedInBrowser(t, base, `${product}/home`, 'sana@example.test')
    const second = await signedInBrowser(t, base, `${product}/home`, 'sana@example.test')
    await openAccountView(first, base)
    const sessions = first.page.getByRole('region', { name: english('account.sessions.heading') })
    const listed = sessions.getByRole('listitem')
    t.equal(await listed.count(), 2, 'both sessions listed')
    const here = listed.filter({ hasText: english('account.sessions.thisBrowser') })
    t.equal(await here.count(), 1, '"This browser" on one of them only')
    const other = listed.filter({ hasNotText: english('account.sessions.thisBrowser') })
    const browserName = (await other.locator('strong').textContent()) ?? ''
    await other.getByRole('button', { name: english('account.sessions.end') }).click()
    await sessions.getByRole('status').filter({ hasText: english('account.sessions.ended', { browser: browserName }) }).waitFor()
    t.equal(await listed.count(), 1, 'only this browser is left in the list')

    t.equal(await refreshStatus(second, base), 401, 'the second browser\'s next refresh is refused')
    await second.page.goto(`${base}/?view=account`)
    await second.page.getByRole('button', { name: 'Login', exact: true }).waitFor()
    t.equal(new URL(second.page.url()).searchParams.get('redirect'), '/?view=account', 'the second browser is sent to sign in, and back to the account view after')
    t.same(unexpectedProblems(first.problems, []), [], 'nothing went wrong in the first')
  })

  await t.test('"Sign out everywhere else" ends every other session and leaves this one', async (t) => {
    await registerAccount(base, 'tomas@example.test')
    const here = await signedInBrowser(t, base, `${product}/home`, 'tomas@example.test')
    const phone = await signedInBrowser(t, base, `${product}/home`, 'tomas@example.test')
    const tablet = await signedInBrowser(t, base, `${product}/home`, 'tomas@example.test')
    await openAccountView(here, base)
    const sessions = here.page.getByRole('region', { name: english('account.sessions.heading') })
    t.equal(await sessions.getByRole('listitem').count(), 3, 'three sessions listed')
    await sessions.getByRole('button', { name: english('account.sessions.endOthers') }).click()
    await sessions.getByRole('status').filter({ hasText: /\S/ }).waitFor()
    t.equal(await sessions.getByRole('listitem').count(), 1, 'only this browser is left in the list')
    t.equal(await sessions.getByRole('button', { name: english('account.sessions.endOthers') }).count(), 0, 'nothing else to sign out')
    t.equal(await refreshStatus(phone, base), 401, 'the second browser\'s refresh is refused')
    t.equal(await refreshStatus(tablet, base), 401, 'the third browser\'s refresh is refused')

    await openAccountView(here, base)
    t.equal(await sessions.getByRole('listitem').count(), 1, 'reloaded, the view lists this browser alone')
    t.equal(await sessions.getByRole('listitem').filter({ hasText: english('account.sessions.thisBrowser') }).count(), 1, 'and it is this browser')
    t.same(unexpectedProblems(here.problems, []), [], 'nothing went wrong here')
  })

  await t.test('the sign-out URL: its button ends the session, clears both cookies and goes on to the product', async (t) => {
    await registerAccount(base, 'lena@example.test')
    const browser = await signedInBrowser(t, base, `${product}/home`, 'lena@example.test')
    const refresh = await cookieValue(browser, base, 'refresh')
    await browser.page.goto(`${base}/?view=logout&redirect=${encodeURIComponent(`${product}/signed-out`)}`)
    await browser.page.getByRole('button', { name: english('signedIn.signOut') }).click()
    await browser.page.waitForURL(`${product}/signed-out`)
    t.same((await browser.context.cookies(base)).filter((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), [], 'both token cookies are gone')
    t.equal((await postJson(base, '/accounts/token/refresh', { refresh })).status, 401, 'the session ended at the service')
    t.same(unexpectedProblems(browser.problems, []), [], 'nothing went wrong on the way')
  })

  await t.test('the sign-out URL with a redirect to a host not allowed signs out, says so on the login view, and follows nothing', async (t) => {
    await registerAccount(base, 'milo@example.test')
    const browser = await signedInBrowser(t, base, `${product}/home`, 'milo@example.test')
    const refresh = await cookieValue(browser, base, 'refresh')
    const followed: string[] = []
    browser.page.on('request', (request) => { if (!request.url().startsWith(base)) followed.push(request.url()) })
    await browser.page.goto(`${base}/?view=logout&redirect=${encodeURIComponent('https://elsewhere.example/steal')}`)
    await browser.page.getByRole('button', { name: english('signedIn.signOut') }).click()
    await browser.page.getByRole('status').filter({ hasText: english('signedIn.signedOut') }).waitFor()
    t.equal(new URL(browser.page.url()).origin, base, 'still on the sign-in page\'s own origin')
    t.ok(await browser.page.getByRole('button', { name: 'Login', exact: true }).isVisible(), 'on the login view')
    t.same(followed, [], 'no request left for the other host')
    t.same((await browser.context.cookies(base)).filter((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), [], 'both token cookies are gone')
    t.equal((await postJson(base, '/accounts/token/refresh', { refresh })).status, 401, 'the session ended at the service')
  })
})
