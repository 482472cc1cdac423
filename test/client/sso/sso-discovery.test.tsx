import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import t, { type Test } from 'tap'
import type { RuntimeConfig } from '../../../common/page/runtime-config.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { SSO_DISCOVERY_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import type { RecordedRequest } from '../../fixtures/servers/edge.js'
import { jsonAnswer } from '../../fixtures/servers/edge.js'
import { english } from '../../fixtures/languages/messages.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'

const DISCOVERY_ON: Partial<RuntimeConfig> = { ssoDiscovery: true }
const CONTINUE = 'Continue with single sign-on'
const NOTE = 'Your organization signs in with single sign-on.'

/**
 * Domains the stand-in knows: with single sign-on, required or not; every other: none. The page keeps
 * each domain's answer for its life (the module's), so each test asks about domains of its own.
 */
const DOMAINS: Record<string, { sso: boolean, required?: boolean }> = {
  'corp.test': { sso: true, required: false },
  'acme.test': { sso: true, required: false },
  'widgets.test': { sso: true, required: false },
  'locked.test': { sso: true, required: true },
  'sealed.test': { sso: true, required: true }
}

/** A real edge proxying discovery (and the spec's calls) to a stand-in that answers by domain. */
async function setUp (t: Test, answers: Record<string, [number, unknown]> = {}) {
  return await startBackend(t, (request: RecordedRequest, response) => {
    const path = request.url.split('?')[0]!
    if (path === '/auth/sso/discover') {
      const { email } = JSON.parse(request.body.toString('utf8')) as { email: string }
      const domain = email.split('@')[1] ?? ''
      return jsonAnswer(200, DOMAINS[domain] ?? { sso: false })(request, response)
    }
    const [status, body] = answers[path] ?? [404, { error: 'Not found.' }]
    return jsonAnswer(status, body)(request, response)
  }, { accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, SSO_DISCOVERY_ROUTES) })
}

const discoveries = (upstream: { requests: Array<{ url: string }> }): number => upstream.requests.filter((request) => request.url === '/auth/sso/discover').length

t.test('a complete address asks once after a pause in typing, never for each keystroke; sso:true swaps the password for single sign-on', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '', DISCOVERY_ON)
  await user.type(screen.getByLabelText('Email'), 'ada@corp.test')
  t.equal(discoveries(upstream), 0, 'nothing asked while typing')
  const button = await screen.findByRole('button', { name: CONTINUE })
  t.equal(discoveries(upstream), 1, 'asked once')
  t.same(lastBody(upstream, '/auth/sso/discover'), { email: 'ada@corp.test' })
  t.ok(screen.getByText(NOTE), 'saying why')
  t.notOk(screen.queryByLabelText('Password', { selector: 'input' }), 'no password field')
  t.ok(screen.getByRole('button', { name: 'Login with Custom SSO provider' }), 'the other methods stay: single sign-on is not required')
  t.equal(document.activeElement, screen.getByLabelText('Email'), 'the focus stays in the email field the visitor types in')
  t.ok(button)
})

t.test('the same domain is asked once for the page\'s life', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '', DISCOVERY_ON)
  const email = screen.getByLabelText('Email')
  await user.type(email, 'ada@acme.test')
  await screen.findByRole('button', { name: CONTINUE })
  await user.clear(email)
  await eventuallyOk(t, () => screen.queryByRole('button', { name: CONTINUE }) === null, 'an incomplete address: the password is back')
  await user.type(email, 'bob@acme.test')
  t.ok(await screen.findByRole('button', { name: CONTINUE }), 'offered again at once')
  t.equal(discoveries(upstream), 1, 'from what the domain answered before')
})

t.test('sso:false leaves the view as it was', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '', DISCOVERY_ON)
  await user.type(screen.getByLabelText('Email'), 'ada@plain.test')
  await eventuallyOk(t, () => discoveries(upstream) === 1, 'asked')
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.ok(screen.getByLabelText('Password', { selector: 'input' }), 'the password field stays')
  t.notOk(screen.queryByRole('button', { name: CONTINUE }))
})

t.test('required: nothing else is offered for that address', async (t) => {
  const { base } = await setUp(t)
  const { user } = renderPage(t, base, '', { ...DISCOVERY_ON, emailCodes: true })
  await user.type(screen.getByLabelText('Email'), 'ada@locked.test')
  await screen.findByRole('button', { name: CONTINUE })
  t.notOk(screen.queryByRole('button', { name: 'Login with Custom SSO provider' }), 'no other method')
  t.notOk(screen.queryByRole('button', { name: 'Email me a sign-in code' }), 'no emailed code')
  t.notOk(screen.queryByLabelText('Password', { selector: 'input' }), 'no password')
})

t.test('the offer starts single sign-on with the typed address, as the modal does', async (t) => {
  const { base, upstream } = await setUp(t, { '/auth/login/sso': [200, { sso_url: 'https://idp.corp.test/authorize?state=x' }] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', DISCOVERY_ON)
  await user.type(screen.getByLabelText('Email'), 'ada@widgets.test')
  await user.click(await screen.findByRole('button', { name: CONTINUE }))
  await eventually(t, () => window.location.href, 'https://idp.corp.test/authorize?state=x')
  t.same(lastBody(upstream, '/auth/login/sso'), {
    email: 'ada@widgets.test', source: 'login', redirect: '/app', insecure_allowed_orgs: [], resource_type: null, cluster_name: null
  })
})

t.test('a submit asks at once; a login refused with sso_required shows its text and switches to single sign-on', async (t) => {
  const refusal = 'Your organization signs in with single sign-on. Continue with single sign-on.'
  const { base, upstream } = await setUp(t, { '/v2/login': [403, { error: refusal, sso_required: true }] })
  const { user } = renderPage(t, base, '', DISCOVERY_ON)
  const email = screen.getByLabelText('Email')
  // Typed and submitted within the pause.
  await user.type(email, 'ada@sealed.test')
  await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'hunter22{Enter}')
  await eventually(t, () => document.getElementById('form-notice')?.textContent, refusal)
  const button = await screen.findByRole('button', { name: CONTINUE })
  t.equal(discoveries(upstream), 1, 'asked once')
  t.ok(button)
  await eventuallyOk(t, () => document.activeElement === screen.getByRole('button', { name: CONTINUE }), 'the focus moves to the new button: the password field it was in is gone')
})

t.test('the register view offers single sign-on in place of its passwords too', async (t) => {
  const { base } = await setUp(t)
  const { user } = renderPage(t, base, '?view=register', DISCOVERY_ON)
  await user.type(await screen.findByLabelText('Company Email'), 'ada@corp.test')
  await screen.findByRole('button', { name: CONTINUE })
  t.notOk(screen.queryByLabelText('Confirm Password', { selector: 'input' }), 'no password fields')
})

t.test('discovery off: nothing is asked', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '')
  await user.type(screen.getByLabelText('Email'), 'ada@other.test')
  await new Promise((resolve) => setTimeout(resolve, 600))
  t.equal(discoveries(upstream), 0)
  t.ok(within(document.body).getByLabelText('Password', { selector: 'input' }))
  t.notOk(screen.queryByText(english('ssoDiscovery.note')))
})
