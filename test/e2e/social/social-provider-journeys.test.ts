import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import t from 'tap'
import { browserSkip, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { english } from '../../fixtures/languages/messages.js'
import { runAccountsAdmin, startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { startAppleStandIn } from '../../fixtures/social/apple-stand-in.js'
import { startGithubStandIn } from '../../fixtures/social/github-stand-in.js'
import { startMicrosoftStandIn } from '../../fixtures/social/microsoft-stand-in.js'
import { callbackOf, formPostOf, holdsSession, openSocialPage, pageRefusal, serviceText, socialStateCookie } from '../../fixtures/social/social-page.js'
import { startOidcProvider } from '../../fixtures/sso/sso-oidc-provider.js'

/*
 * Each provider end to end in real Chromium against the built server (page,
 * edge and forked reference service): the button on the page, the provider's
 * stand-in (test/fixtures/social/), the return, and the visitor signed in on
 * the redirect target. The page is on localhost and the stand-ins on
 * 127.0.0.1, other sites: Apple's form_post is cross-site, as in production.
 */

/** An account's details as the operator's `show` command prints them (server/reference/admin/account-commands.ts). */
async function shown (server: { dataDir: string }, email: string): Promise<{ id: string, name: string, verified: boolean, password: boolean }> {
  const text = await runAccountsAdmin(server, ['show', email])
  const row = (label: string): string => new RegExp(`^${label}:\\s+(.*)$`, 'm').exec(text)?.[1] ?? ''
  return { id: row('Account id'), name: row('Name'), verified: row('Verified').startsWith('yes'), password: row('Password') === 'yes' }
}

t.test('each social provider signs a visitor in through the page, in real Chromium', { skip: browserSkip }, async (t) => {
  const iconDir = mkdtempSync(join(tmpdir(), 'threshold-social-icon-'))
  t.teardown(() => rmSync(iconDir, { recursive: true, force: true }))
  const iconPath = join(iconDir, 'gitlab.svg')
  writeFileSync(iconPath, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><rect width="20" height="20" fill="#fc6d26"/></svg>')

  const product = await startProductApp(t)
  let base = ''
  const apple = await startAppleStandIn(t, { redirectUri: () => formPostOf(base) })
  const microsoft = await startMicrosoftStandIn(t, { redirectUri: () => callbackOf(base, 'microsoft') })
  // A Fabrikam user whose address its tenant's domain owner vouches for (erin is Contoso's).
  microsoft.users.set('fay', { tid: microsoft.tenants.fabrikam, oid: randomUUID(), email: 'fay@fabrikam.example', name: 'Fay Fabrikam', xmsEdov: true })
  const github = await startGithubStandIn(t, { redirectUri: () => callbackOf(base, 'github') })
  const oidc = await startOidcProvider(t, { redirectUri: () => callbackOf(base, 'gitlab') })
  oidc.users.set('gil', { email: 'gil@gitlab.example', email_verified: true })

  const server = await startBuiltServer(t, {
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '600',
    SOCIAL_CONNECTIONS: JSON.stringify([
      apple.connection(),
      microsoft.connection(),
      github.connection(),
      { type: 'oidc', id: 'gitlab', name: 'GitLab', icon: iconPath, issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret, scope: 'openid email' }
    ])
  })
  base = server.base
  const target = `${product}/dashboard`
  const loginPage = `${base}/?redirect=${encodeURIComponent(target)}`

  /** Opens the login view and presses the provider's button (its whole label). */
  async function press (page: Page, label: string): Promise<void> {
    await page.goto(loginPage)
    await waitForHydration(page)
    await page.getByRole('button', { name: label, exact: true }).click()
  }

  await t.test('Apple: the button, Apple\'s page posting back cross-site, and the first sign-in\'s name kept', async (t) => {
    const { page, context, problems } = await openSocialPage(t)
    const started = Date.now()
    await press(page, english('social.apple.login'))
    await page.waitForURL(target)
    t.comment(`from Apple's button to the product: ${Date.now() - started} ms`)
    t.equal(await page.locator('h1').textContent(), 'Welcome to the product')
    t.ok(await holdsSession(context, base), 'signed in')
    t.notOk(await socialStateCookie(context, base), 'the state cookie is gone')
    t.equal(apple.clientSecrets.length, 1, 'Apple\'s token endpoint took the signed client secret')
    const first = await shown(server, 'alice@example.com')
    t.equal(first.name, 'Alice Appleseed', 'the name Apple sent on the first sign-in is on the account')
    t.ok(first.verified, 'the address Apple vouched for is verified')
    t.notOk(first.password, 'no password')
    t.same(problems, [])

    // Apple sends the name once: the next sign-in (another browser) has no `user` field.
    const again = await openSocialPage(t)
    await press(again.page, english('social.apple.login'))
    await again.page.waitForURL(target)
    t.ok(await holdsSession(again.context, base), 'signed in again')
    const later = await shown(server, 'alice@example.com')
    t.equal(later.id, first.id, 'the same account')
    t.equal(later.name, 'Alice Appleseed', 'the name is kept')
    t.same(again.problems, [])
  })

  await t.test('Microsoft: users of two tenants sign in under `common`, each to an account of their own', async (t) => {
    for (const [login, email] of [['erin', 'erin@contoso.example'], ['fay', 'fay@fabrikam.example']] as const) {
      const { page, context, problems } = await openSocialPage(t)
      microsoft.signInAs(login)
      await press(page, english('social.microsoft'))
      await page.waitForURL(target)
      t.ok(await holdsSession(context, base), `${login} is signed in`)
      t.ok((await shown(server, email)).verified, `${login}'s account, its address verified`)
      t.same(problems, [])
    }
    t.not((await shown(server, 'erin@contoso.example')).id, (await shown(server, 'fay@fabrikam.example')).id, 'two accounts')
  })

  await t.test('Microsoft: a work address its tenant does not vouch for signs nobody in', async (t) => {
    const { page, context } = await openSocialPage(t)
    microsoft.signInAs('ada')
    await press(page, english('social.microsoft'))
    await pageRefusal(page, serviceText('social.emailNotVerified', { provider: 'Microsoft' }))
    t.equal(new URL(page.url()).origin, base, 'back on the page')
    t.notOk(await holdsSession(context, base), 'no session')
    await t.rejects(shown(server, 'ada@contoso.example'), 'no account was made')
  })

  await t.test('GitHub: a verified primary address signs in; an unverified primary is refused', async (t) => {
    const { page, context, problems } = await openSocialPage(t)
    github.signInAs('octocat')
    await press(page, english('social.github.login'))
    await page.waitForURL(target)
    t.ok(await holdsSession(context, base), 'signed in')
    t.ok((await shown(server, 'octocat@github.example')).verified, 'the account of the verified primary address')
    t.same(problems, [])

    const refused = await openSocialPage(t)
    github.signInAs('unverified')
    await press(refused.page, english('social.github.login'))
    await pageRefusal(refused.page, serviceText('social.emailNotVerified', { provider: 'GitHub' }))
    t.notOk(await holdsSession(refused.context, base), 'no session')
    await t.rejects(shown(server, 'unverified@github.example'), 'no account for the unverified primary')
    await t.rejects(shown(server, 'verified-secondary@github.example'), 'nor for the verified secondary')
    t.same(refused.problems, [])
  })

  await t.test('a generic OpenID Connect provider: its button shows its icon, served by the edge, and signs in', async (t) => {
    const { page, context, problems } = await openSocialPage(t)
    await page.goto(loginPage)
    await waitForHydration(page)
    const button = page.getByRole('button', { name: english('social.generic', { provider: 'GitLab' }), exact: true })
    const icon = button.locator('img')
    const src = await icon.getAttribute('src')
    t.match(src, /^\/social-icons\/gitlab\.svg\b/, 'the icon is the edge\'s, on the page\'s origin')
    await t.resolves(icon.evaluate((image: HTMLImageElement) => image.decode()), 'the icon loads')
    t.ok(await icon.evaluate((image: HTMLImageElement) => image.naturalWidth > 0), 'and is drawn')
    const served = await fetch(new URL(src!, base))
    t.equal(served.status, 200)
    t.match(served.headers.get('content-type'), /^image\/svg\+xml/)

    await button.click()
    await page.waitForURL(`${oidc.issuer}/interaction/**`)
    await page.locator('input[name="login"]').fill('gil')
    await page.locator('input[name="password"]').fill('any password')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(target)
    t.ok(await holdsSession(context, base), 'signed in')
    t.ok((await shown(server, 'gil@gitlab.example')).verified, 'the account of the provider\'s verified address')
    t.same(unexpectedProblems(problems, []), [])
  })
})
