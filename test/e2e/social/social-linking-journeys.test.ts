import type { Page } from 'playwright-core'
import t from 'tap'
import { openAccountView } from '../../fixtures/account/account-browser.js'
import { browserSkip, unexpectedProblems, waitForHydration, type WatchedPage } from '../../fixtures/browsers/chromium.js'
import { newestLink } from '../../fixtures/emails/outbox.js'
import { english } from '../../fixtures/languages/messages.js'
import { registerAccount, verifyAddress } from '../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { startGithubStandIn } from '../../fixtures/social/github-stand-in.js'
import { callbackOf, holdsSession, openSocialPage, pageRefusal, serviceText } from '../../fixtures/social/social-page.js'

/*
 * Linking a provider to an account, through the page, against the built
 * server with GitHub's stand-in and emailed codes off (so that a password, a
 * passkey or a provider is every way in): connect from the account view
 * after "Confirm it's you", sign in with it later, disconnect it while a
 * password remains, never the last way in; and an address alone never links
 * (docs/social-sign-in.md, the linking rules).
 */

const PROOF_COOKIE = 'threshold_proof'
const GITHUB = 'GitHub'

/** Presses an account-view button that needs a fresh proof, with the proof gone, and confirms with the password. */
async function withFreshProof ({ page, context }: WatchedPage, button: string): Promise<void> {
  await context.clearCookies({ name: PROOF_COOKIE })
  await page.getByRole('button', { name: button, exact: true }).click()
  await page.getByRole('heading', { name: english('freshProof.heading') }).waitFor()
  await page.getByRole('textbox', { name: english('field.password'), exact: true }).fill(GOOD_PASSWORD)
  await page.getByRole('button', { name: english('freshProof.confirm'), exact: true }).click()
}

/** Whom the account view says is signed in. */
async function signedInAs (page: Page, email: string): Promise<boolean> {
  await page.getByRole('heading', { name: english('heading.account') }).waitFor()
  return await page.getByText(english('account.signedInAs', { email }), { exact: true }).count() === 1
}

t.test('connecting GitHub to an account and signing in with it, in real Chromium', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  let base = ''
  const github = await startGithubStandIn(t, { redirectUri: () => callbackOf(base, 'github') })
  // Lee's GitHub account vouches for another address than her account's: only the link can lead there.
  github.users.set('lee', { id: 7001, name: 'Lee', emails: [{ email: 'lee@elsewhere.example', primary: true, verified: true, visibility: 'private' }] })
  github.users.set('dora', { id: 7002, name: 'Dora', emails: [{ email: 'dora@example.test', primary: true, verified: true, visibility: 'public' }] })
  github.users.set('solo', { id: 7003, name: 'Solo', emails: [{ email: 'solo@github.example', primary: true, verified: true, visibility: 'public' }] })
  const server = await startBuiltServer(t, {
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '600',
    EMAIL_CODES: 'false',
    // No offer of a passkey or an authenticator app after a sign-in: the visitor goes straight on.
    PASSKEYS: 'false',
    SECOND_FACTOR: 'false',
    SOCIAL_CONNECTIONS: JSON.stringify([github.connection()])
  })
  base = server.base
  const target = `${product}/dashboard`
  const connect = english('account.social.connect', { provider: GITHUB })
  const disconnect = english('account.social.disconnect', { provider: GITHUB })

  async function signInWithGithub ({ page }: WatchedPage, login: string): Promise<void> {
    github.signInAs(login)
    await page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await waitForHydration(page)
    await page.getByRole('button', { name: english('social.github.login'), exact: true }).click()
  }

  await t.test('a password account with a verified address connects GitHub, signs in with it, and disconnects it', async (t) => {
    // Signed up on the register view, the address verified by the emailed link, opened in the same browser.
    const owner = await openSocialPage(t)
    await owner.page.goto(`${base}/?view=register`)
    await waitForHydration(owner.page)
    await owner.page.getByLabel('Company Email', { exact: true }).fill('lee@example.test')
    await owner.page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD)
    await owner.page.getByLabel('Confirm Password', { exact: true }).fill(GOOD_PASSWORD)
    await owner.page.getByRole('button', { name: 'Sign Up', exact: true }).click()
    const link = await newestLink(server.dataDir, 'verify')
    await owner.page.goto(link)
    await owner.page.getByRole('status').filter({ hasText: english('notice.emailVerified') }).waitFor()
    await owner.page.goto(`${base}/?redirect=${encodeURIComponent(target)}`)
    await signInOnPage(owner.page, 'lee@example.test')
    await owner.page.waitForURL(target)
    await openAccountView(owner, base)
    await owner.page.getByRole('heading', { name: english('account.social.heading') }).waitFor()
    t.ok(await owner.page.getByText(english('account.social.notLinked')).isVisible(), 'not connected yet')

    github.signInAs('lee')
    await withFreshProof(owner, connect)
    await owner.page.getByRole('status').filter({ hasText: english('account.social.connected', { provider: GITHUB }) }).waitFor()
    const query = new URL(owner.page.url()).searchParams
    t.notOk(query.has('id') || query.has('social_link'), 'the single-use id left the address')
    t.ok(await owner.page.getByText(/^Connected as lee@elsewhere\.example since /).isVisible(), 'connected, with the address GitHub vouched for')

    // The account's own Sign out, before each session's in the list below it.
    await owner.page.getByRole('button', { name: english('account.signOut'), exact: true }).first().click()
    await owner.page.getByText(english('signedIn.signedOut')).waitFor()
    t.notOk(await holdsSession(owner.context, base), 'signed out')

    await signInWithGithub(owner, 'lee')
    await owner.page.waitForURL(target)
    await openAccountView(owner, base)
    t.ok(await signedInAs(owner.page, 'lee@example.test'), 'GitHub signed in to the same account')

    await withFreshProof(owner, disconnect)
    await owner.page.getByRole('status').filter({ hasText: english('account.social.disconnected', { provider: GITHUB }) }).waitFor()
    await owner.page.getByRole('button', { name: connect, exact: true }).waitFor()
    t.ok(await owner.page.getByText(english('account.social.notLinked')).isVisible(), 'not connected any more, the password kept')
    // The two 403s that asked for a fresh proof (connect, then disconnect).
    t.same(unexpectedProblems(owner.problems, [403, 403]), [])
  })

  await t.test('GitHub vouching for a verified account\'s address does not sign in to it: no link on the address alone', async (t) => {
    const registering = await registerAccount(base, 'dora@example.test')
    await verifyAddress(base, server.dataDir, 'dora@example.test', registering)
    const browser = await openSocialPage(t)
    await signInWithGithub(browser, 'dora')
    await pageRefusal(browser.page, serviceText('social.accountExists', { provider: GITHUB }))
    t.equal(new URL(browser.page.url()).origin, base, 'still on the page')
    t.notOk(await holdsSession(browser.context, base), 'no session')
    t.same(unexpectedProblems(browser.problems, [409]), [])
  })

  await t.test('an account made by GitHub alone cannot disconnect it: it is the last way in', async (t) => {
    const browser = await openSocialPage(t)
    await signInWithGithub(browser, 'solo')
    await browser.page.waitForURL(target)
    await openAccountView(browser, base)
    t.ok(await signedInAs(browser.page, 'solo@github.example'), 'the account GitHub made')
    await browser.page.getByRole('button', { name: disconnect, exact: true }).click()
    await pageRefusal(browser.page, english('account.social.lastWayIn', { provider: GITHUB }))
    t.ok(await browser.page.getByText(/^Connected as solo@github\.example since /).isVisible(), 'still connected')
    t.same(unexpectedProblems(browser.problems, [409]), [])
  })
})
