import '../fixtures/page/dom.js'
import { act, screen } from '@testing-library/react'
import t from 'tap'
import { english } from '../fixtures/languages/messages.js'
import { setViewportWidth } from '../fixtures/page/dom.js'
import { answersByPath, eventuallyOk, renderPage, startBackend } from '../fixtures/page/page.js'

t.test('views switch by rewriting the query string, keeping the rest, and the back button returns', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base, '?redirect=%2Fapp&cluster_name=prod')
  await user.click(screen.getByRole('link', { name: 'Sign Up' }))
  t.equal(window.location.search, '?redirect=%2Fapp&cluster_name=prod&view=register')
  t.ok(screen.getByLabelText('Company Email'))
  await user.click(screen.getByRole('link', { name: 'Login' }))
  await user.click(screen.getByRole('link', { name: 'Forgot Password' }))
  t.ok(screen.getByRole('button', { name: 'Send a Password Reset Email' }))
  await act(async () => {
    window.history.back()
    await new Promise((resolve) => setTimeout(resolve, 50))
  })
  await eventuallyOk(t, () => screen.queryByRole('button', { name: 'Login' }) !== null, 'back returns to the login view')
  // The view first, then the rest as written (common/page/page-render.ts viewLinkHref: the server renders them alike).
  t.equal(screen.getByRole('link', { name: 'Sign Up' }).getAttribute('href'), '/?view=register&redirect=%2Fapp&cluster_name=prod', 'links are real URLs')
})

t.test('error keys in the address show their messages; unknown values are shown verbatim', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '?error=DOMAIN_NOT_AUTHORIZED')
  t.equal(screen.getByRole('alert').textContent, english('error.DOMAIN_NOT_AUTHORIZED'))
})

t.test('markup in the error parameter is shown as text, never rendered', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, `?error=${encodeURIComponent('<img src=x onerror=alert(1)>Session over')}`)
  t.equal(screen.getByRole('alert').textContent, '<img src=x onerror=alert(1)>Session over')
  t.equal(document.querySelector('img[src="x"]'), null)
})

t.test('login_method limits the methods shown', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '?login_method=SAML', { googleClientId: 'abc.apps.googleusercontent.com' })
  t.equal(screen.queryByLabelText('Password'), null, 'no email and password form')
  t.equal(screen.queryByRole('separator'), null, 'no divider with a single method')
  t.ok(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  t.equal(screen.queryByRole('button', { name: /Google/ }), null)
})

t.test('the layout is the stylesheet\'s, the same markup at every width (media queries; test/e2e/page/layout.test.ts measures it)', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  setViewportWidth(1280)
  renderPage(t, base)
  // The columns, not the background: the video's variant follows the width once it loads.
  const wide = document.querySelector('.page__columns')!.outerHTML
  t.equal(document.querySelector('.page')!.getAttribute('data-layout'), null, 'no layout chosen by script')
  for (const width of [1000, 511, 512, 1024]) {
    await act(async () => setViewportWidth(width))
    t.equal(document.querySelector('.page__columns')!.outerHTML, wide, `the same markup at ${width} px`)
  }
})

t.test('the password field can be shown and warns about Caps Lock', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base)
  const password = screen.getByLabelText('Password')
  t.equal(password.getAttribute('type'), 'password')
  const toggle = screen.getByRole('button', { name: 'Show password' })
  await user.click(toggle)
  t.equal(password.getAttribute('type'), 'text')
  t.equal(screen.getByRole('button', { name: 'Hide password' }).getAttribute('aria-pressed'), 'true')
  await user.click(password)
  await user.keyboard('{CapsLock}a')
  await eventuallyOk(t, () => screen.queryByText('Caps Lock is on.') !== null, 'the Caps Lock warning')
})
