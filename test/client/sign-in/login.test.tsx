import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t from 'tap'
import { ACCOUNTS_FAILURE_MESSAGES } from '../../../server/edge/upstream/accounts-proxy.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { jsonAnswer } from '../../fixtures/servers/edge.js'
import { english } from '../../fixtures/languages/messages.js'
import { answersByPath, eventually, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'
import { blockCookies } from '../../fixtures/page/document-cookies.js'

t.test('the login view has the spec\'s fields, buttons and links', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '?home_page_banner=Maintenance%20on%20Sunday')
  t.ok(screen.getByRole('heading', { level: 1 }))
  t.ok(screen.getByLabelText('Email'))
  t.ok(screen.getByLabelText('Password'))
  t.ok(screen.getByRole('button', { name: 'Login' }))
  t.ok(screen.getByRole('separator'), 'the or divider')
  t.ok(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  t.equal(screen.queryByRole('button', { name: /Google/ }), null, 'no Google button without GOOGLE_CLIENT_ID')
  t.ok(screen.getByRole('link', { name: 'Sign Up' }))
  t.ok(screen.getByRole('link', { name: 'Forgot Password' }))
  t.equal(screen.getByRole('link', { name: 'support@example.com' }).getAttribute('href'), 'mailto:support@example.com')
  t.ok(screen.getByText('Maintenance on Sunday'), 'the banner')
  t.equal(screen.getByLabelText('Email').getAttribute('autocomplete'), 'username')
  t.equal(screen.getByLabelText('Password').getAttribute('autocomplete'), 'current-password')
})

t.test('a successful login stores the tokens and goes to the redirect target, keeping the hash', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }] }))
  const { user } = renderPage(t, base, '?redirect=%2Fapp%2Fhome&allowed_org=acme,beta&resource_type=cluster&cluster_name=prod#section-2')
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse')
  await user.click(screen.getByRole('button', { name: 'Login' }))
  await eventually(t, () => window.location.href, `${base}/app/home#section-2`)
  t.same(lastBody(upstream, '/v2/login'), {
    email: 'ada@example.test', password: 'correct horse', insecure_allowed_orgs: ['acme', 'beta'], resource_type: 'cluster', cluster_name: 'prod'
  })
  // The cookies themselves are checked in test/client/sessions/session-cookies.test.ts and in real Chromium (test/e2e).
})

/** The cookies a script on the page reads, by name. */
function scriptCookies (): Record<string, string> {
  return Object.fromEntries(document.cookie.split('; ').filter(Boolean).map((pair) => pair.split('=') as [string, string]))
}

function clearScriptCookies (): void {
  for (const name of Object.keys(scriptCookies())) document.cookie = `${name}=; Max-Age=0; Path=/`
}

t.test('after a login the page writes the auth cookie only: the refresh token is the edge\'s HttpOnly cookie', async (t) => {
  clearScriptCookies()
  // Even an answer that carries the refresh token (happy-dom's fetch states no site, so the edge
  // takes it for a tool's call and leaves the body whole) is not written where scripts read it.
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'eyJ.page-auth', refresh: 'page-refresh' }] }))
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', 'correct horse', { pressEnter: true })
  await eventually(t, () => window.location.pathname, '/app')
  t.equal(scriptCookies().auth, 'eyJ.page-auth', 'the auth cookie, for the product\'s scripts')
  t.notOk(Object.hasOwn(scriptCookies(), 'refresh'), 'no refresh cookie a script can read')
})

t.test('with AUTH_COOKIE_HTTPONLY the page writes no token cookie at all', async (t) => {
  clearScriptCookies()
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'eyJ.server-auth', refresh: 'server-refresh' }] }), { env: { AUTH_COOKIE_HTTPONLY: 'true' } })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { authCookieHttpOnly: true })
  await signInOnView(user, 'ada@example.test', 'correct horse', { pressEnter: true })
  await eventually(t, () => window.location.pathname, '/app')
  t.same(scriptCookies(), {}, 'the edge set both, HttpOnly; the page wrote neither')
})

t.test('tokens the browser does not keep are reported with the generic message, and the page stays', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }] }))
  // A browser that keeps none of the page's cookies, as one with cookies blocked, or one that drops
  // a cookie over 4096 bytes (happy-dom keeps those: the 5 KB answer is in test/e2e/sessions/session-cookies.test.ts).
  blockCookies(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', 'correct horse', { pressEnter: true })
  await eventually(t, () => screen.getByRole('alert').textContent, english('error.GENERIC'))
  t.equal(window.location.href, `${base}/?redirect=%2Fapp`, 'still on the page')
  t.notOk(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'the visitor can try again')
})

t.test('a hostile redirect sends the visitor to the site origin instead', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'a', refresh: 'r' }] }))
  const { user } = renderPage(t, base, `?redirect=${encodeURIComponent('https://evil.test/')}`)
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  await eventually(t, () => window.location.href, `${base}/`)
})

t.test('a refused login shows the server\'s text; it is hidden and every button disabled while the next request runs', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [401, { error: 'Invalid email or password.' }] }, 400))
  const { user } = renderPage(t, base)
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'wrong')
  await user.click(screen.getByRole('button', { name: 'Login' }))
  await eventually(t, () => screen.getByRole('alert').textContent, 'Invalid email or password.')
  t.notOk(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'buttons are enabled again')
  t.equal(screen.getByLabelText('Password').getAttribute('aria-invalid'), 'true')

  await user.click(screen.getByRole('button', { name: 'Login' }))
  await eventually(t, () => screen.getByRole('button', { name: 'Login' }).getAttribute('aria-busy'), 'true')
  t.equal(screen.getByRole('alert').textContent, '', 'the error is hidden while the request is pending')
  for (const button of screen.getAllByRole('button').filter((candidate) => !/Show|Copy|background/.test(candidate.textContent ?? '') && candidate.getAttribute('aria-label') === null)) {
    t.ok(button.hasAttribute('disabled'), `${button.textContent} is disabled`)
  }
  await eventually(t, () => screen.getByRole('alert').textContent, 'Invalid email or password.')
})

t.test('an answer the page cannot read shows the edge\'s own message for it, not "could not be reached"', async (t) => {
  // JSON, but not an object: the edge answers in the backend's place (the page's own generic message is for
  // answers that reach it unreadable, as in local-network mode: test/client/http/accounts-calls.test.ts).
  const { base } = await startBackend(t, jsonAnswer(200, ['not', 'an', 'object']))
  const { user } = renderPage(t, base)
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  await eventually(t, () => screen.getByRole('alert').textContent, ACCOUNTS_FAILURE_MESSAGES.unreadable)
})

t.test('the whole login works with the keyboard alone', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'k.auth', refresh: 'k-refresh' }] }))
  setPageUrl(`${base}/`)
  const { user } = renderPage(t, base, '?redirect=%2Fdone')
  await user.tab()
  t.equal(document.activeElement, screen.getByLabelText('Email'))
  await user.keyboard('ada@example.test')
  await user.tab()
  await user.keyboard('correct horse{Enter}')
  await eventually(t, () => window.location.pathname, '/done')
})
