import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t from 'tap'
import { answersByPath, eventually, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'

t.test('a password reset request goes back to the login view with the success text', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/resetPasswordRequest': [200, { success: 'Check your email.' }] }))
  const { user } = renderPage(t, base, '?view=resetPassword')
  t.ok(screen.getByRole('link', { name: 'Back to Login' }))
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.click(screen.getByRole('button', { name: 'Send a Password Reset Email' }))
  await eventually(t, () => screen.getByRole('status').textContent, 'Check your email.')
  t.same(lastBody(upstream, '/resetPasswordRequest'), { email: 'ada@example.test' })
  t.ok(screen.getByRole('button', { name: 'Login' }))
})

t.test('the reset link\'s view sets a new password and returns to login', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/resetPassword': [200, { success: 'Password changed.' }] }), {
    accountsRoutes: (await import('../../../server/reference/http/exposed-routes.js')).REFERENCE_ACCOUNTS_ROUTES
  })
  const { user } = renderPage(t, base, '?view=setPassword&token=tok_1234567890abcdefghij')
  await user.type(screen.getByLabelText('New Password'), 'a new passphrase')
  await user.type(screen.getByLabelText('Confirm Password'), 'a new passphrase')
  await user.click(screen.getByRole('button', { name: 'Set New Password' }))
  await eventually(t, () => screen.getByRole('status').textContent, 'Password changed.')
  t.same(lastBody(upstream, '/resetPassword'), { token: 'tok_1234567890abcdefghij', password: 'a new passphrase', confirm_password: 'a new passphrase' })
  t.equal(new URLSearchParams(window.location.search).get('token'), null, 'the used token leaves the address bar')
})
