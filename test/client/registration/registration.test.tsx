import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t from 'tap'
import { answersByPath, eventually, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'

t.test('registration goes back to the login view with the success text and the email kept', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/register': [200, { success: 'Your account has been created.' }] }))
  const { user } = renderPage(t, base, '?view=register&redirect=%2Fapp')
  t.ok(screen.getByRole('link', { name: 'Login' }), 'the Login link')
  t.ok(screen.getByText(/Already have an account\?/))
  t.ok(screen.getByRole('button', { name: 'Sign up with Custom SSO provider' }))
  await user.type(screen.getByLabelText('First Name (optional)'), 'Ada')
  await user.type(screen.getByLabelText('Company Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse')
  await user.type(screen.getByLabelText('Confirm Password'), 'correct horse')
  t.equal(screen.getByLabelText('Confirm Password').getAttribute('autocomplete'), 'new-password')
  await user.click(screen.getByRole('button', { name: 'Sign Up' }))
  await eventually(t, () => screen.getByRole('status').textContent, 'Your account has been created.')
  t.same(lastBody(upstream, '/register'), { first_name: 'Ada', last_name: '', email: 'ada@example.test', password: 'correct horse', confirm_password: 'correct horse' })
  t.equal(new URLSearchParams(window.location.search).get('view'), null, 'the login view')
  t.equal(new URLSearchParams(window.location.search).get('redirect'), '/app', 'other parameters kept')
  t.equal((screen.getByLabelText<HTMLInputElement>('Email')).value, 'ada@example.test')
})
