import type { Page } from 'playwright-core'
import t from 'tap'
import type { SocialReturnUrls } from '../../../server/reference/social/social-identity.js'
import { appleClient } from '../../../server/reference/social/providers/apple-client.js'
import { githubClient } from '../../../server/reference/social/providers/github-client.js'
import { microsoftClient } from '../../../server/reference/social/providers/microsoft-client.js'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { startAppleStandIn } from '../../fixtures/social/apple-stand-in.js'
import { startGithubStandIn } from '../../fixtures/social/github-stand-in.js'
import { startMicrosoftStandIn } from '../../fixtures/social/microsoft-stand-in.js'
import { readForm, sendHtml, startStandInServer } from '../../fixtures/social/stand-in-server.js'
import { socialConnection } from '../../fixtures/social/social-connection.js'

/**
 * The stand-ins' authorization pages driven by real Chromium, as the sign-in journeys will drive them: each
 * brings the browser back to the service on its own (Apple's page posts a form by script; Microsoft and
 * GitHub redirect), and what arrives there verifies with the provider's client.
 */
t.test('the providers\' stand-in pages return the browser on their own', { skip: browserSkip }, async (t) => {
  const received: Array<{ readonly method: string, readonly fields: URLSearchParams }> = []
  const origin = await startStandInServer(t, async (request, url, response) => {
    // Chromium asks for the favicon too.
    if (!url.pathname.startsWith('/accounts/')) return sendHtml(response, 404, '<title>Not found</title>')
    const fields = request.method === 'POST' ? await readForm(request) : url.searchParams
    received.push({ method: request.method ?? '', fields })
    sendHtml(response, 200, '<title>Back at the service</title><p>received</p>')
  })
  // One connection's addresses (the stand-ins take whichever they are sent).
  const urls: SocialReturnUrls = { callback: `${origin}/accounts/auth/social/callback/test`, formPost: `${origin}/accounts/auth/social/form-post/test` }

  const returnTo = async (page: Page, authorizationUrl: string): Promise<{ method: string, fields: URLSearchParams }> => {
    const before = received.length
    await page.goto(authorizationUrl)
    await page.waitForURL((url) => url.origin === origin)
    await page.getByText('received').waitFor()
    t.equal(received.length, before + 1, 'one return')
    return received.at(-1)!
  }

  t.test('Apple\'s page posts the code, state and first sign-in\'s user to the form_post address', async (t) => {
    const apple = await startAppleStandIn(t)
    const client = appleClient(socialConnection(apple.connection()), urls, Date.now)
    const { page, problems } = await openPage(t)
    const { url, secrets } = await client.begin()
    const { method, fields } = await returnTo(page, url)
    t.equal(method, 'POST')
    t.equal(new URL(page.url()).pathname, '/accounts/auth/social/form-post/test')
    t.same([...fields.keys()].sort(), ['code', 'state', 'user'])
    const identity = await client.finish(fields, secrets)
    t.same([identity.email, identity.emailVerified, identity.firstName], ['alice@example.com', true, 'Alice'])
    t.same(problems, [])
  })

  t.test('Apple\'s page posts a cancel as error and state', async (t) => {
    const apple = await startAppleStandIn(t)
    const client = appleClient(socialConnection(apple.connection()), urls, Date.now)
    const { page } = await openPage(t)
    const { url, secrets } = await client.begin()
    apple.refuseNext()
    const { fields } = await returnTo(page, url)
    t.same(Object.fromEntries(fields), { error: 'user_cancelled_authorize', state: secrets.state })
  })

  t.test('Microsoft redirects to the callback with the code and state', async (t) => {
    const microsoft = await startMicrosoftStandIn(t)
    microsoft.signInAs('pat')
    const client = microsoftClient(socialConnection(microsoft.connection()), urls, Date.now)
    const { page } = await openPage(t)
    const { url, secrets } = await client.begin()
    const { method, fields } = await returnTo(page, url)
    t.equal(method, 'GET')
    t.equal((await client.finish(fields, secrets)).email, 'pat@outlook.example')
  })

  t.test('GitHub redirects to the callback with the code and state, or access_denied', async (t) => {
    const github = await startGithubStandIn(t)
    const client = githubClient(socialConnection(github.connection()), urls, Date.now)
    const { page } = await openPage(t)
    const { url, secrets } = await client.begin()
    t.equal((await client.finish((await returnTo(page, url)).fields, secrets)).subject, '583231')
    github.refuseNext()
    const refused = await client.begin()
    t.equal((await returnTo(page, refused.url)).fields.get('error'), 'access_denied')
  })
})
