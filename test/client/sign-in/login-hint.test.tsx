import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t from 'tap'
import { answersByPath, lastBody, renderPage, startBackend, eventually } from '../../fixtures/page/page.js'

/** The page as the embedded provider sends a visitor to it (an OpenID Connect request with `login_hint`). */
const FROM_PROVIDER = '?redirect=%2Foidc%2Finteraction%2Fuid-1&login_hint=ada%40example.test'

t.test('login_hint fills the login view\'s email, and the login sends it', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }] }))
  const { user } = renderPage(t, base, FROM_PROVIDER)
  t.equal(screen.getByLabelText<HTMLInputElement>('Email').value, 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse')
  await user.click(screen.getByRole('button', { name: 'Login' }))
  await eventually(t, () => (lastBody(upstream, '/v2/login') as { email?: string } | undefined)?.email, 'ada@example.test')
})

t.test('login_hint fills the register view\'s email too, and the visitor may change it', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base, `${FROM_PROVIDER}&view=register`)
  const email = screen.getByLabelText<HTMLInputElement>('Company Email')
  t.equal(email.value, 'ada@example.test')
  await user.clear(email)
  await user.type(email, 'grace@example.test')
  t.equal(email.value, 'grace@example.test')
})
