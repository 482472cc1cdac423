import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { answersByPath, eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'

t.test('the SSO modal: prefilled email, Cancel and Escape close it, focus returns', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base)
  await user.type(screen.getByLabelText('Email'), 'ada@corp.test')
  const opener = screen.getByRole('button', { name: 'Login with Custom SSO provider' })
  await user.click(opener)
  const dialog = await screen.findByRole('dialog', { name: 'SSO Login' })
  t.equal(dialog.getAttribute('aria-modal'), 'true')
  const email = within(dialog).getByLabelText<HTMLInputElement>('Email')
  t.equal(email.value, 'ada@corp.test')
  await eventuallyOk(t, () => document.activeElement === email, 'focus moves into the dialog')
  t.ok(within(dialog).getByRole('button', { name: 'Login' }))

  await user.tab()
  await user.tab()
  await user.tab()
  t.ok(dialog.contains(document.activeElement), 'Tab stays inside the dialog')
  await user.keyboard('{Escape}')
  t.equal(screen.queryByRole('dialog'), null, 'Escape closes it')
  await eventuallyOk(t, () => document.activeElement === opener, 'focus returns to the button that opened it')

  await user.click(opener)
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }))
  t.equal(screen.queryByRole('dialog'), null, 'Cancel closes it')
})

t.test('SSO start posts the view as source and sends the browser to sso_url', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/auth/login/sso': [200, { sso_url: 'https://idp.corp.test/authorize?state=x' }] }))
  const { user } = renderPage(t, base, '?view=register&redirect=%2Fapp&allowed_org=acme')
  await user.type(screen.getByLabelText('Company Email'), 'ada@corp.test')
  await user.click(screen.getByRole('button', { name: 'Sign up with Custom SSO provider' }))
  await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign up' }))
  await eventually(t, () => window.location.href, 'https://idp.corp.test/authorize?state=x')
  t.same(lastBody(upstream, '/auth/login/sso'), {
    email: 'ada@corp.test', source: 'register', redirect: '/app', insecure_allowed_orgs: ['acme'], resource_type: null, cluster_name: null
  })
})

t.test('an SSO start that is refused shows its text in the modal; a javascript: sso_url is not followed', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/auth/login/sso': [200, { sso_url: 'javascript:alert(1)' }] }))
  const { user } = renderPage(t, base)
  await user.click(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  const dialog = await screen.findByRole('dialog')
  await user.type(within(dialog).getByLabelText('Email'), 'ada@corp.test')
  await user.click(within(dialog).getByRole('button', { name: 'Login' }))
  await eventually(t, () => within(screen.getByRole('dialog')).getByRole('alert').textContent, english('error.GENERIC'))
  t.equal(window.location.protocol, 'http:')
})

t.test('the SSO return leg completes a login by itself and removes id and email from the address bar', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/v2/auth/login': [200, { auth: 'sso.auth', refresh: 'sso-refresh' }] }, 200))
  renderPage(t, base, '?oidc=1&email=ada%40corp.test&id=one-time-id&login=1&redirect=%2Fapp&cluster_name=prod')
  await eventuallyOk(t, () => !/id=|email=/.test(window.location.search))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(upstream, '/v2/auth/login'), {
    email: 'ada@corp.test', login_method: 'OIDC', id: 'one-time-id', insecure_allowed_orgs: [], resource_type: null, cluster_name: 'prod'
  })
  t.equal(upstream.requests.filter((request) => request.url === '/v2/auth/login').length, 1, 'completed once')
})

t.test('the SSO return leg completes a registration and shows the success text', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/auth/register': [200, { success: 'Registered with SSO.' }] }))
  renderPage(t, base, '?saml=1&email=ada%40corp.test&id=one-time-id&register=1&view=register')
  await eventually(t, () => screen.getByRole('status').textContent, 'Registered with SSO.')
  t.same(lastBody(upstream, '/auth/register'), { register_method: 'SAML', id: 'one-time-id' })
  t.ok(screen.getByRole('button', { name: 'Login' }), 'on the login view')
})
