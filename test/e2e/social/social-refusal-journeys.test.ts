import { randomBytes } from 'node:crypto'
import type { Cookie } from 'playwright-core'
import t from 'tap'
import { browserSkip, unexpectedProblems, waitForHydration, type WatchedPage } from '../../fixtures/browsers/chromium.js'
import { english } from '../../fixtures/languages/messages.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { startGithubStandIn } from '../../fixtures/social/github-stand-in.js'
import { startMicrosoftStandIn } from '../../fixtures/social/microsoft-stand-in.js'
import { callbackOf, holdsSession, openSocialPage, pageRefusal, serviceText, socialStateCookie } from '../../fixtures/social/social-page.js'

/*
 * What a social sign-in refuses, through the browser, against the built
 * server: each refusal is a clear message on the page and no session (no
 * auth or refresh cookie). The replays are written as the attack: the
 * browser that signed in keeps its `social_state` cookie as it was at the
 * return, and goes back to the same address once its session is gone.
 */

t.test('refused social sign-ins in real Chromium: a clear message and no session', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  let base = ''
  const github = await startGithubStandIn(t, { redirectUri: () => callbackOf(base, 'github') })
  const microsoft = await startMicrosoftStandIn(t, { redirectUri: () => callbackOf(base, 'microsoft') })
  const server = await startBuiltServer(t, {
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '600',
    // Microsoft for Contoso's tenant alone.
    SOCIAL_CONNECTIONS: JSON.stringify([github.connection(), microsoft.connection({ tenant: microsoft.tenants.contoso })])
  })
  base = server.base
  const target = `${product}/dashboard`
  const loginPage = `${base}/?redirect=${encodeURIComponent(target)}`

  async function press ({ page }: WatchedPage, label: string): Promise<void> {
    await page.goto(loginPage)
    await waitForHydration(page)
    await page.getByRole('button', { name: label, exact: true }).click()
  }

  await t.test('the provider\'s error (the visitor cancelled at GitHub)', async (t) => {
    const browser = await openSocialPage(t)
    github.refuseNext()
    await press(browser, english('social.github.login'))
    await pageRefusal(browser.page, serviceText('social.providerRefused', { provider: 'GitHub' }))
    t.equal(new URL(browser.page.url()).origin, base, 'back on the page')
    t.notOk(await holdsSession(browser.context, base), 'no session')
    t.same(browser.problems, [])
  })

  await t.test('the return link and the provider\'s callback, each replayed after a sign-in, sign nobody in', async (t) => {
    const browser = await openSocialPage(t)
    const { page, context } = browser
    const navigations: string[] = []
    page.on('request', (request) => { if (request.isNavigationRequest()) navigations.push(request.url()) })
    // The binding cookie as the page holds it when it completes: what a replay would have.
    let binding: Cookie | undefined
    await page.route(`${base}/accounts/v2/auth/login`, async (route) => {
      binding ??= await socialStateCookie(context, base)
      await route.continue()
    })
    github.signInAs('octocat')
    await press(browser, english('social.github.login'))
    await page.waitForURL(target)
    t.ok(await holdsSession(context, base), 'the sign-in itself works')
    t.ok(binding, 'the page held the binding cookie at its completion')
    const callback = navigations.find((url) => url.startsWith(`${callbackOf(base, 'github')}?`))
    const returnLink = navigations.find((url) => url.startsWith(`${base}/?`) && new URL(url).searchParams.has('id'))
    t.ok(callback, 'the browser came back through the callback')
    t.ok(returnLink, 'and to the page with its single-use id')
    const refusalsBefore = github.refusals.length

    /** The session gone, the binding cookie back as it was: the same browser, replaying. */
    async function replay (url: string): Promise<void> {
      await context.clearCookies()
      await context.addCookies([binding!])
      await page.goto(url)
    }

    await replay(returnLink!)
    await pageRefusal(page, serviceText('social.linkRefused'))
    t.notOk(await holdsSession(context, base), 'the used id signs nobody in')

    await replay(callback!)
    await pageRefusal(page, serviceText('social.notThisBrowser'))
    t.notOk(await holdsSession(context, base), 'the used state signs nobody in')
    t.equal(github.refusals.length, refusalsBefore, 'refused before the code was offered to GitHub again')
    // The refused completion's 401.
    t.same(unexpectedProblems(browser.problems, [401]), [])
  })

  await t.test('an answer no transaction of this browser started (a provider not configured, or a forged callback)', async (t) => {
    const browser = await openSocialPage(t)
    const { page, context } = browser
    // A sign-in started (its binding cookie set), then abandoned at GitHub.
    await context.route(`${github.baseUrl}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>GitHub</title>' }))
    await press(browser, english('social.github.login'))
    await page.waitForURL(`${github.baseUrl}/**`)
    t.ok(await socialStateCookie(context, base), 'the browser holds a binding')
    const refusalsBefore = github.refusals.length
    await page.goto(`${callbackOf(base, 'github')}?code=${randomBytes(10).toString('hex')}&state=${randomBytes(32).toString('base64url')}`)
    await pageRefusal(page, serviceText('social.notThisBrowser'))
    t.notOk(await holdsSession(context, base), 'no session')
    t.equal(github.refusals.length, refusalsBefore, 'no code was exchanged')
    t.same(browser.problems, [])
  })

  await t.test('Microsoft for one tenant: a user of the other tenant, and a token from it, are refused', async (t) => {
    // The other tenant's user: Microsoft itself refuses at the tenant's endpoint.
    const refused = await openSocialPage(t)
    microsoft.signInAs('bob')
    await press(refused, english('social.microsoft'))
    await pageRefusal(refused.page, serviceText('social.providerRefused', { provider: 'Microsoft' }))
    t.notOk(await holdsSession(refused.context, base), 'no session')

    // A token from Fabrikam for Contoso's connection: signed by Microsoft, its tenant not the configured one.
    const forged = await openSocialPage(t)
    microsoft.signInAs('erin')
    microsoft.tamperNextIdToken({ tid: microsoft.tenants.fabrikam, iss: microsoft.issuerOf(microsoft.tenants.fabrikam), email: 'bob@fabrikam.example', xms_edov: true })
    await press(forged, english('social.microsoft'))
    await pageRefusal(forged.page, serviceText('social.notVerified', { provider: 'Microsoft' }))
    t.notOk(await holdsSession(forged.context, base), 'no session')
    t.same([...refused.problems, ...forged.problems], [])
  })
})
