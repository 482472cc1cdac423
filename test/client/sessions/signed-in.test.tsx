import { setPageUrl } from '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { eventually, eventuallyOk, renderPage, startBackend } from '../../fixtures/page/page.js'
import { answerByPath } from '../../fixtures/second-factor/second-factor.js'

/*
 * The signed-in state (docs/page.md, "A visitor who is signed in already"):
 * the page opened with a live session and nowhere else to go. Driven by role,
 * against a stand-in accounts service behind the real edge.
 */

/** An auth token as the page reads it: only its payload's `email` and `exp` matter here (the page never verifies it). */
const authToken = (email: string, expiresInSeconds: number): string =>
  `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'a1', email, exp: Math.floor(Date.now() / 1000) + expiresInSeconds })).toString('base64url')}.c2ln`

const SIGNED_OUT = { success: 'Logged out.' }

async function setUp (t: Test, answers: Record<string, [number, unknown]> = {}, auth: string | null = authToken('ada@example.test', 600)) {
  const { base, upstream } = await startBackend(t, answerByPath({ '/token/revoke': [200, SIGNED_OUT], ...answers }), {
    accountsRoutes: REFERENCE_ACCOUNTS_ROUTES
  })
  // The cookies are the page's origin's: set where the page will be (renderPage opens it there).
  setPageUrl(`${base}/`)
  document.cookie = 'auth=; max-age=0; path=/'
  document.cookie = 'refresh=; max-age=0; path=/'
  if (auth !== null) document.cookie = `auth=${auth}; path=/`
  document.cookie = 'refresh=r-live; path=/'
  return { base, upstream }
}

const paths = (upstream: { requests: Array<{ url: string }> }) => upstream.requests.map((request) => request.url)

t.test('with a live session and no redirect, the page says whom it is signed in as, with the focus on its heading', async (t) => {
  const { base } = await setUp(t)
  renderPage(t, base)
  const heading = await screen.findByRole('heading', { name: english('signedIn.heading') })
  t.ok(screen.getByText(english('signedIn.as', { email: 'ada@example.test' })))
  await eventuallyOk(t, () => document.activeElement === heading, 'focus on the heading')
  t.equal(screen.queryByRole('button', { name: 'Login' }), null, 'no login form')
  t.ok(screen.getByRole('button', { name: english('signedIn.signOut') }))
})

t.test('a redirect to the page itself shows the state too; one elsewhere keeps the login form, with no call made', async (t) => {
  await t.test('to the page', async (t) => {
    const { base } = await setUp(t)
    renderPage(t, base, '?redirect=%2F')
    t.ok(await screen.findByRole('heading', { name: english('signedIn.heading') }))
  })
  await t.test('elsewhere', async (t) => {
    const { base, upstream } = await setUp(t)
    renderPage(t, base, '?redirect=%2Fapp')
    t.ok(screen.getByRole('button', { name: 'Login' }))
    await new Promise((resolve) => setTimeout(resolve, 200))
    t.equal(screen.queryByRole('heading', { name: english('signedIn.heading') }), null)
    t.ok(screen.getByRole('button', { name: 'Login' }), 'the form stays')
    t.same(paths(upstream), [])
  })
  await t.test('without a token cookie', async (t) => {
    const { base, upstream } = await setUp(t, {}, null)
    renderPage(t, base)
    await new Promise((resolve) => setTimeout(resolve, 200))
    t.ok(screen.getByRole('button', { name: 'Login' }))
    t.same(paths(upstream), [], 'nothing asked')
  })
})

t.test('"Sign out" revokes the refresh token, removes the token cookies and shows the login form, saying so', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base)
  await user.click(await screen.findByRole('button', { name: english('signedIn.signOut') }))
  await screen.findByRole('button', { name: 'Login' })
  t.same(paths(upstream), ['/token/revoke'])
  t.match(JSON.parse(upstream.requests[0]!.body.toString('utf8')), { refresh: 'r-live' }, 'the edge gave the call the refresh cookie\'s token')
  t.notMatch(document.cookie, /(^|; )(auth|refresh)=/, 'both token cookies gone')
  await eventuallyOk(t, () => screen.queryByText(english('signedIn.signedOut')) !== null, 'said')
})

t.test('a sign-out the service cannot answer says so in an alert and the state stays', async (t) => {
  const { base } = await setUp(t, { '/token/revoke': [503, { error: 'Down.' }] })
  const { user } = renderPage(t, base)
  await user.click(await screen.findByRole('button', { name: english('signedIn.signOut') }))
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === english('signedIn.signOutFailed')))
  t.ok(screen.getByRole('heading', { name: english('signedIn.heading') }))
  t.match(document.cookie, /(^|; )auth=/, 'the cookie stays: the session lives')
})

t.test('an expired auth token: a refresh names the visitor (and its token is stored), or the login form shows', async (t) => {
  await t.test('the refresh token lives', async (t) => {
    const fresh = authToken('bea@example.test', 900)
    const { base, upstream } = await setUp(t, { '/token/refresh': [200, { auth: fresh, refresh: 'r-next' }] }, authToken('bea@example.test', -60))
    renderPage(t, base)
    t.ok(await screen.findByText(english('signedIn.as', { email: 'bea@example.test' })))
    t.same(paths(upstream), ['/token/refresh'])
    await eventually(t, () => new URLSearchParams(document.cookie.replace(/; /g, '&')).get('auth'), fresh)
  })
  await t.test('it does not', async (t) => {
    const { base } = await setUp(t, { '/token/refresh': [401, { error: 'This session has ended.' }] }, authToken('bea@example.test', -60))
    renderPage(t, base)
    t.ok(await screen.findByRole('button', { name: 'Login' }), 'the login form, once the refresh is refused')
    t.equal(screen.queryByRole('heading', { name: english('signedIn.heading') }), null)
  })
})
