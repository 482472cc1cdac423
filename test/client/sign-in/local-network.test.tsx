import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { answersByPath, eventually, renderPage, startBackend } from '../../fixtures/page/page.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

t.test('local-network mode logs in at the local accounts server and blocks view switching and the support link', async (t) => {
  const { base: local, upstream } = await startBackend(t, answersByPath({}))
  const localHost = new URL(local)
  const { base } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base, `?local_accounts_host=${localHost.hostname}&local_accounts_port=${localHost.port}`, { googleClientId: 'x.apps.googleusercontent.com' })
  t.equal(screen.queryByRole('link', { name: 'Sign Up' }), null)
  t.equal(screen.queryByRole('link', { name: 'support@example.com' }), null)
  t.equal(screen.queryByRole('button', { name: /Google|SSO/ }), null, 'only the local method')
  await signInOnView(user, 'ada@lan.test', 'pw', { pressEnter: true })
  await eventually(t, () => screen.getByRole('alert').textContent, english('error.GENERIC'))
  t.equal(upstream.requests.length, 0, 'the edge of the local server has no /authenticate; nothing went through the page\'s own edge either')
})

t.test('local-network mode with a host that is not allowed shows an error and sends nothing', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base, '?local_accounts_host=evil.test')
  t.match(screen.getByRole('alert').textContent, /not allowed/)
  await signInOnView(user, 'ada@lan.test', 'secret', { pressEnter: true })
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(upstream.requests.length, 0)
})

t.test('registration-type actions in local-network mode report that they are not supported', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base, '?view=register&local_accounts_host=localhost')
  await user.type(screen.getByLabelText('Company Email'), 'ada@lan.test')
  await user.click(screen.getByRole('button', { name: 'Sign Up' }))
  t.equal(screen.getByRole('alert').textContent, english('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  t.equal(upstream.requests.length, 0)
})
