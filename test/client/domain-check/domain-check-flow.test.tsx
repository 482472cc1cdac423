import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, listen, startUpstream } from '../../fixtures/servers/edge.js'
import { startEdgeAuthResponder } from '../../fixtures/domain-check/edge-auth.js'
import { eventually, renderPage } from '../../fixtures/page/page.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

async function backend (t: import('tap').Test, edgeAuthUpstream?: string) {
  const accounts = await startUpstream(t, jsonAnswer(200, { auth: 'a.b.c', refresh: 'r', sso_url: 'https://idp.test/' }))
  const responder = edgeAuthUpstream ?? await startEdgeAuthResponder(t, { authorized: ['good.test'], unauthorized: ['bad.test'] })
  const base = await listen(await buildEdge(t, { accountsUpstream: accounts.url, edgeAuthUpstream: responder }))
  return { base, accounts }
}

async function logIn (t: import('tap').Test, base: string, email: string, query = '?supports_domain_auth_check=true') {
  const { user } = renderPage(t, base, query)
  await signInOnView(user, email, 'secret', { pressEnter: true })
}

t.test('an unauthorized domain is refused with the spec\'s message and no login is sent', async (t) => {
  const { base, accounts } = await backend(t)
  await logIn(t, base, 'ada@bad.test')
  await eventually(t, () => screen.queryByRole('alert')?.textContent, english('error.DOMAIN_NOT_AUTHORIZED'))
  t.equal(accounts.requests.length, 0)
})

t.test('authorized and unspecified domains go on to log in', async (t) => {
  for (const email of ['ada@good.test', 'ada@elsewhere.test']) {
    await t.test(email, async (t) => {
      const { base, accounts } = await backend(t)
      await logIn(t, base, email)
      await eventually(t, () => accounts.requests.length, 1, 'the login is sent')
      t.equal(accounts.requests[0]!.url, '/v2/login')
    })
  }
})

t.test('the part after the last @ is the domain asked about', async (t) => {
  const { base, accounts } = await backend(t)
  await logIn(t, base, '"odd@name"@bad.test')
  await eventually(t, () => screen.queryByRole('alert')?.textContent, english('error.DOMAIN_NOT_AUTHORIZED'))
  t.equal(accounts.requests.length, 0)
})

t.test('a check that fails stops the login with the check-failed message', async (t) => {
  const { base, accounts } = await backend(t, DEAD_UPSTREAM)
  await logIn(t, base, 'ada@good.test')
  await eventually(t, () => screen.queryByRole('alert')?.textContent, english('error.DOMAIN_AUTH_CHECK_FAILED'))
  t.equal(accounts.requests.length, 0)
})

t.test('without the parameter no check is made', async (t) => {
  const responder = await startUpstream(t, () => { throw new Error('must not be called') })
  const { base, accounts } = await backend(t, responder.url)
  await logIn(t, base, 'ada@bad.test', '')
  await eventually(t, () => accounts.requests.length, 1)
  t.equal(responder.requests.length, 0)
})

t.test('SSO start is checked too', async (t) => {
  const { base, accounts } = await backend(t)
  const { user } = renderPage(t, base, '?supports_domain_auth_check=true')
  await user.click(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  const dialog = await screen.findByRole('dialog')
  await user.type(within(dialog).getByLabelText('Email'), 'ada@bad.test')
  await user.click(within(dialog).getByRole('button', { name: 'Login' }))
  await eventually(t, () => within(screen.getByRole('dialog')).queryByRole('alert')?.textContent, english('error.DOMAIN_NOT_AUTHORIZED'))
  t.equal(accounts.requests.length, 0)
})
