import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t, { type Test } from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { withEmailCodeRoutes } from '../../../server/shared/accounts-routes.js'
import type { RuntimeConfig } from '../../../common/page/runtime-config.js'
import { answersByPath, eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'

const TOKENS = { auth: 'eyJ.email-code', refresh: 'refresh-email-code' }
const SENT = 'If this address can sign in here, a code is on its way.'
const EMAIL_CODES_ON: Partial<RuntimeConfig> = { emailCodes: true }

/** A real edge proxying the emailed code's calls to an upstream that answers each path as told. */
async function setUp (t: Test, answers: Record<string, [number, unknown]> = {}) {
  localStorage.clear()
  return await startBackend(t, answersByPath({
    '/email-code/send': [200, { success: SENT, expires_in: 600 }],
    '/email-code/login': [200, TOKENS],
    ...answers
  }), { accountsRoutes: withEmailCodeRoutes(REFERENCE_ACCOUNTS_ROUTES, true) })
}

/** The step's own notice (the page's, below the card's step, stays empty). */
const stepAlert = (): string | undefined => document.querySelector('section [role="alert"]')?.textContent ?? undefined
const buttonNames = (): string[] => screen.getAllByRole('button').map((button) => button.textContent ?? '')
const sends = (upstream: { requests: Array<{ url: string }> }): number => upstream.requests.filter((request) => request.url === '/email-code/send').length

/** Opens the steps from the login view and asks for a code for `email`: the code step then has the card. */
async function askForCode (t: Test, base: string, email = 'ada@example.test') {
  const page = renderPage(t, base, '?redirect=%2Fapp', EMAIL_CODES_ON)
  const { user } = page
  await user.type(screen.getByLabelText('Email'), email)
  await user.click(screen.getByRole('button', { name: 'Email me a sign-in code' }))
  const heading = await screen.findByRole('heading', { name: 'Sign in with an emailed code' })
  t.equal(document.activeElement, heading, 'the request step\'s heading takes the focus')
  t.equal(screen.getByLabelText<HTMLInputElement>('Email').value, email, 'the address comes from the view')
  await user.click(screen.getByRole('button', { name: 'Email me a code' }))
  await screen.findByRole('heading', { name: 'Check your email' })
  return page
}

t.test('the login view offers the emailed code after the passkey button and before SSO, as login_method and the switch allow', async (t) => {
  const { base } = await setUp(t)
  renderPage(t, base, '', EMAIL_CODES_ON)
  const names = buttonNames()
  t.ok(names.indexOf('Email me a sign-in code') > names.indexOf('Login'), 'after the form')
  t.ok(names.indexOf('Email me a sign-in code') < names.indexOf('Login with Custom SSO provider'), 'before SSO')
})

t.test('no emailed code where the service does not answer its calls, or login_method leaves it out; alone with EMAIL_CODE', async (t) => {
  const { base } = await setUp(t)
  const view = renderPage(t, base, '', { emailCodes: false })
  t.notOk(screen.queryByRole('button', { name: 'Email me a sign-in code' }), 'the switch off')
  view.unmount()
  const google = renderPage(t, base, '?login_method=GOOGLE', EMAIL_CODES_ON)
  t.notOk(screen.queryByRole('button', { name: 'Email me a sign-in code' }), 'login_method=GOOGLE')
  google.unmount()
  renderPage(t, base, '?login_method=EMAIL_CODE', EMAIL_CODES_ON)
  t.ok(screen.getByRole('button', { name: 'Email me a sign-in code' }), 'login_method=EMAIL_CODE')
  t.notOk(screen.queryByRole('button', { name: 'Login' }), 'and nothing else')
})

t.test('the register view offers signing up with an emailed code', async (t) => {
  const { base } = await setUp(t)
  const { user } = renderPage(t, base, '?view=register', EMAIL_CODES_ON)
  await user.click(await screen.findByRole('button', { name: 'Sign up with an emailed code' }))
  t.ok(await screen.findByRole('heading', { name: 'Sign up with an emailed code' }))
})

t.test('a code asked for, pasted as the email shows it, signs in and leaves; the method is the one used last', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = await askForCode(t, base)
  t.same(lastBody(upstream, '/email-code/send'), { email: 'ada@example.test' })
  t.equal(screen.getByRole('status').textContent, SENT, 'the send\'s text above the field')
  const field = screen.getByLabelText('Code from the email')
  t.equal(document.activeElement, field, 'the field takes the focus')
  t.equal(field.getAttribute('autocomplete'), 'one-time-code')
  t.equal(field.getAttribute('autocapitalize'), 'characters')
  t.equal(field.getAttribute('spellcheck'), 'false')
  await user.paste('abcd-efgh')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.match(lastBody(upstream, '/email-code/login'), { email: 'ada@example.test', code: 'ABCDEFGH', insecure_allowed_orgs: [] })
  t.equal(localStorage.getItem('threshold:last-sign-in-method'), 'email-code')
})

t.test('a code typed with spaces is posted as the code; an incomplete one is said and never posted', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = await askForCode(t, base)
  const field = screen.getByLabelText('Code from the email')
  await user.type(field, 'abc')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
  t.equal(stepAlert(), 'Enter the 8 characters of the code from the email.')
  t.equal(field.getAttribute('aria-invalid'), 'true')
  t.equal(lastBody(upstream, '/email-code/login'), undefined, 'nothing posted')
  await user.clear(field)
  await user.type(field, ' ab cd ef gh ')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
  await eventually(t, () => window.location.pathname, '/app')
  t.match(lastBody(upstream, '/email-code/login'), { code: 'ABCDEFGH' })
})

t.test('a refused code is said in the step, which stays for another try', async (t) => {
  const refusal = 'That code is not right, or it has expired.'
  const { base } = await setUp(t, { '/email-code/login': [401, { error: refusal, reason: 'code_wrong' }] })
  const { user } = await askForCode(t, base)
  await user.type(screen.getByLabelText('Code from the email'), 'ABCDEFGH')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
  await eventually(t, () => stepAlert(), refusal)
  t.ok(screen.getByRole('heading', { name: 'Check your email' }), 'the step stays')
  t.equal(localStorage.getItem('threshold:last-sign-in-method'), null, 'no sign-in, no mark')
})

t.test('a refused send is said in the request step', async (t) => {
  const { base } = await setUp(t, { '/email-code/send': [429, { error: 'Too many codes. Try again later.', retry_after: 60 }] })
  const { user } = renderPage(t, base, '', EMAIL_CODES_ON)
  await user.click(screen.getByRole('button', { name: 'Email me a sign-in code' }))
  await user.type(await screen.findByLabelText('Email'), 'ada@example.test')
  await user.click(screen.getByRole('button', { name: 'Email me a code' }))
  await eventually(t, () => stepAlert(), 'Too many codes. Try again later.')
  t.notOk(screen.queryByRole('heading', { name: 'Check your email' }))
})

t.test('"Send a new code" sends again to the same address; "Use another address" goes back to the request', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = await askForCode(t, base)
  await user.click(screen.getByRole('button', { name: 'Send a new code' }))
  await eventually(t, () => screen.queryByRole('status')?.textContent, 'A new code is on its way.')
  t.equal(sends(upstream), 2)
  t.same(lastBody(upstream, '/email-code/send'), { email: 'ada@example.test' })
  await user.click(screen.getByRole('button', { name: 'Use another address' }))
  t.ok(await screen.findByRole('heading', { name: 'Sign in with an emailed code' }))
  await user.clear(screen.getByLabelText('Email'))
  await user.type(screen.getByLabelText('Email'), 'grace@example.test')
  await user.click(screen.getByRole('button', { name: 'Email me a code' }))
  await screen.findByRole('heading', { name: 'Check your email' })
  t.match(screen.getByText(/grace@example\.test/).textContent, 'grace@example.test', 'the new address is the step\'s')
  t.same(lastBody(upstream, '/email-code/send'), { email: 'grace@example.test' })
})

t.test('"Use another way to sign in" goes back to the login view', async (t) => {
  const { base } = await setUp(t)
  const { user } = renderPage(t, base, '', EMAIL_CODES_ON)
  await user.click(screen.getByRole('button', { name: 'Email me a sign-in code' }))
  await user.click(await screen.findByRole('button', { name: 'Use another way to sign in' }))
  t.ok(screen.getByRole('button', { name: 'Login' }))
})

t.test('a code whose account has a second factor hands over to the second factor\'s code step', async (t) => {
  const { base } = await setUp(t, { '/email-code/login': [200, { second_factor: 'code', challenge: 'ch-email', expires_in: 300 }] })
  const { user } = await askForCode(t, base)
  await user.type(screen.getByLabelText('Code from the email'), 'ABCDEFGH')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
  await eventuallyOk(t, () => document.querySelector('input[name="challenge"]')?.getAttribute('value') === 'ch-email', 'the second factor\'s step has the challenge')
  t.notOk(screen.queryByRole('heading', { name: 'Check your email' }), 'the emailed code\'s step is gone')
})

t.test('the domain check runs before a code is sent where the page asks for one', async (t) => {
  const { base, upstream } = await setUp(t)
  // No edge-auth service answers: the check fails closed with its refusal, and nothing is sent.
  const { user } = renderPage(t, base, '?supports_domain_auth_check=true', { ...EMAIL_CODES_ON, domainCheckTimeoutMs: 2000 })
  await user.click(screen.getByRole('button', { name: 'Email me a sign-in code' }))
  await user.type(await screen.findByLabelText('Email'), 'ada@example.test')
  await user.click(screen.getByRole('button', { name: 'Email me a code' }))
  await eventuallyOk(t, () => (stepAlert() ?? '') !== '', 'the check\'s refusal is said')
  t.equal(sends(upstream), 0, 'no code sent')
})
