import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t from 'tap'
import { answersByPath, renderPage, startBackend } from '../../fixtures/page/page.js'

t.test('the Google button is shown where configured, disabled until Google\'s script loads', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '', { googleClientId: 'abc.apps.googleusercontent.com' })
  const google = screen.getByRole('button', { name: 'Login with Google' })
  t.ok(google.hasAttribute('disabled'), 'Google\'s script cannot load here, so the button stays disabled')
})

t.test('Google sign-in is not offered on a disabled host name', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '', { googleClientId: 'abc.apps.googleusercontent.com', googleDisabledHostnames: ['localhost'] })
  t.equal(screen.queryByRole('button', { name: /Google/ }), null)
})
