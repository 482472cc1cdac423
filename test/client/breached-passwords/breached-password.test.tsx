import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { PASSWORD_BREACHED_FIELD } from '../../../common/breached-passwords/breached-password.js'
import { jsonAnswer, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { english } from '../../fixtures/languages/messages.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { SECOND_FACTOR_TEST_ROUTES } from '../../fixtures/second-factor/second-factor.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/**
 * After a login whose answer says the password was found in a breach
 * (common/breached-passwords/breached-password.ts), the page says so before it leaves, through
 * the real edge in front of a real upstream: the reset link on offer, and
 * Continue going on as the login would have. And the refusals of a new
 * password found in a breach (registration, reset) read as any refusal.
 */

const TOKENS = { auth: 'eyJ.breached', refresh: 'refresh-b' }
const BREACHED = { ...TOKENS, [PASSWORD_BREACHED_FIELD]: true }
const BREACH_REFUSAL = 'This password has appeared in a data breach, so it is not safe to use. Please choose another.'

async function setUp (t: Test, answers: Record<string, [number, unknown]>) {
  const { base, upstream } = await startBackend(t, (request: RecordedRequest, response: ServerResponse) => {
    const [status, body] = answers[request.url] ?? [404, { error: 'Not found.' }]
    jsonAnswer(status, body)(request, response)
  }, { accountsRoutes: SECOND_FACTOR_TEST_ROUTES, passwordResetCompletion: true })
  localStorage.clear()
  document.cookie = 'auth=; max-age=0; path=/'
  return { base, upstream }
}

/** A password the breach check flags (the stand-in says so whatever is typed). */
const BREACHED_PASSWORD = 'Summer2024!'

t.test('a login with a breached password shows the notice before leaving; "Email me a link" sends the reset link to the login\'s address and says so; Continue leaves', async (t) => {
  const { base, upstream } = await setUp(t, { '/v2/login': [200, BREACHED], '/resetPasswordRequest': [200, { success: 'Sent.' }] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', BREACHED_PASSWORD)
  const heading = await screen.findByRole('heading', { name: english('breachedPassword.heading') })
  await eventuallyOk(t, () => document.activeElement === heading, 'the heading has the focus')
  t.ok(screen.getByText(english('breachedPassword.explanation')))
  t.match(document.cookie, /auth=eyJ\.breached/, 'signed in already: the tokens are stored')
  t.equal(window.location.pathname, '/', 'the page has not left')
  t.equal(screen.queryByLabelText('Password'), null, 'the form gave the card to the notice')

  await user.click(screen.getByRole('button', { name: english('breachedPassword.sendLink') }))
  const sent = english('breachedPassword.linkSent', { email: 'ada@example.test' })
  await eventuallyOk(t, () => screen.queryByText(sent) !== null, 'says where the link went')
  t.ok(screen.getByText(sent).closest('[role="status"]'), 'politely')
  t.same(lastBody(upstream, '/resetPasswordRequest'), { email: 'ada@example.test' })
  t.equal(screen.queryByRole('button', { name: english('breachedPassword.sendLink') }), null, 'the button goes once the link is sent')

  await user.click(screen.getByRole('button', { name: english('breachedPassword.continue') }))
  await eventually(t, () => window.location.href, `${base}/app`, 'Continue goes on to the redirect target')
})

t.test('Continue without the link goes on at once, and sends nothing', async (t) => {
  const { base, upstream } = await setUp(t, { '/v2/login': [200, BREACHED] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', BREACHED_PASSWORD)
  await user.click(await screen.findByRole('button', { name: english('breachedPassword.continue') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.notOk(upstream.requests.some((request) => request.url === '/resetPasswordRequest'))
})

t.test('a refused reset link is said in the notice, which stays, and Continue still goes on', async (t) => {
  const { base } = await setUp(t, { '/v2/login': [200, BREACHED], '/resetPasswordRequest': [429, { error: 'Too many emails. Try again in an hour.' }] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', BREACHED_PASSWORD)
  await user.click(await screen.findByRole('button', { name: english('breachedPassword.sendLink') }))
  await eventuallyOk(t, () => screen.queryAllByRole('alert').some((alert) => alert.textContent === 'Too many emails. Try again in an hour.'), 'the service\'s refusal, in an alert')
  t.ok(screen.getByRole('button', { name: english('breachedPassword.sendLink') }), 'the link can be asked for again')
  await user.click(screen.getByRole('button', { name: english('breachedPassword.continue') }))
  await eventually(t, () => window.location.pathname, '/app')
})

t.test('a login without the flag leaves at once, with no notice', async (t) => {
  const { base } = await setUp(t, { '/v2/login': [200, { ...TOKENS, [PASSWORD_BREACHED_FIELD]: 'yes' }] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', BREACHED_PASSWORD)
  await eventually(t, () => window.location.pathname, '/app')
  t.equal(screen.queryByRole('heading', { name: english('breachedPassword.heading') }), null)
})

t.test('the flag carried to the second factor\'s tokens shows the notice after the code step', async (t) => {
  const { base } = await setUp(t, {
    '/v2/login': [200, { second_factor: 'code', challenge: 'ch-code', expires_in: 300 }],
    '/second-factor/verify': [200, BREACHED]
  })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { secondFactor: true })
  await signInOnView(user, 'ada@example.test', BREACHED_PASSWORD)
  await user.type(await screen.findByRole('textbox', { name: english('secondFactor.codeLabel') }), '123456')
  await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
  await user.click(await screen.findByRole('button', { name: english('breachedPassword.continue') }))
  await eventually(t, () => window.location.pathname, '/app')
})

t.test('the notice comes after the second-factor offer, not instead of it', async (t) => {
  const { base } = await setUp(t, { '/v2/login': [200, BREACHED] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { secondFactor: true })
  await signInOnView(user, 'ada@example.test', BREACHED_PASSWORD)
  await user.click(await screen.findByRole('button', { name: english('secondFactor.notNow') }))
  await user.click(await screen.findByRole('button', { name: english('breachedPassword.continue') }))
  await eventually(t, () => window.location.pathname, '/app')
})

t.test('a new password found in a breach is refused at registration and at the reset with the service\'s text, shown as any refusal', async (t) => {
  const { base } = await setUp(t, { '/register': [400, { error: BREACH_REFUSAL }], '/resetPassword': [400, { error: BREACH_REFUSAL }] })
  await t.test('registration', async (t) => {
    const { user } = renderPage(t, base, '?view=register')
    await user.type(screen.getByLabelText('Company Email'), 'ada@example.test')
    await user.type(screen.getByLabelText('Password', { selector: 'input' }), 'Summer2024!')
    await user.type(screen.getByLabelText('Confirm Password', { selector: 'input' }), 'Summer2024!')
    await user.click(screen.getByRole('button', { name: 'Sign Up' }))
    await eventually(t, () => screen.getByRole('alert').textContent, BREACH_REFUSAL)
    t.equal(screen.getByLabelText('Password', { selector: 'input' }).getAttribute('aria-invalid'), 'true')
  })
  await t.test('the reset', async (t) => {
    const { user } = renderPage(t, base, '?view=setPassword&token=reset-token-1')
    const fields = screen.getAllByLabelText(/password/i, { selector: 'input' })
    for (const field of fields) await user.type(field, 'Summer2024!')
    await user.click(screen.getByRole('button', { name: english('setPassword.submit') }))
    await eventually(t, () => screen.getByRole('alert').textContent, BREACH_REFUSAL)
  })
})
