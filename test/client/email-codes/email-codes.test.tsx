import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t, { type Test } from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { EMAIL_CODE_ROUTES, PASSKEY_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import type { RuntimeConfig } from '../../../common/page/runtime-config.js'
import { answersByPath, eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { installStandInBrowser, standInCredential, type StandInBrowser } from '../../fixtures/passkeys/webauthn-browser.js'

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
  }), { accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, EMAIL_CODE_ROUTES) })
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

t.test('a sign-up by code whose address has an account with a second factor shows the code step alone, not the register view below it', async (t) => {
  const { base } = await setUp(t, { '/email-code/login': [200, { second_factor: 'code', challenge: 'ch-sign-up', expires_in: 300 }] })
  const { user } = renderPage(t, base, '?view=register', EMAIL_CODES_ON)
  await user.click(await screen.findByRole('button', { name: 'Sign up with an emailed code' }))
  await user.type(await screen.findByLabelText('Email'), 'taken@example.test')
  await user.click(screen.getByRole('button', { name: 'Email me a code' }))
  await user.type(await screen.findByLabelText('Code from the email'), 'ABCDEFGH')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
  await eventuallyOk(t, () => document.querySelector('input[name="challenge"]')?.getAttribute('value') === 'ch-sign-up', 'the second factor\'s step has the challenge')
  t.notOk(screen.queryByRole('button', { name: 'Sign Up' }), 'the register view\'s form is not shown under it')
  t.notOk(screen.queryByLabelText('Confirm Password'), 'nor its fields')
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

const PASSKEY_SIGN_UP: Partial<RuntimeConfig> = { emailCodes: true, passkeyRpId: 'localhost' }
const creationOptions = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { id: 'localhost', name: 'Threshold' },
  user: { id: 'dXNlcg', name: 'ada@example.test', displayName: 'ada@example.test' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  excludeCredentials: []
}
const attestation = { id: 'cred-new', rawId: 'cred-new', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' } }

/**
 * The passkey sign-up from the register view, up to its passkey step: the
 * request step (its heading focused), the code, then the passkey step with
 * its heading focused. A stand-in for navigator.credentials (a real object,
 * fixtures/passkeys/webauthn-browser.ts) answers the ceremonies; a real edge
 * proxies the emailed code's and the passkeys' calls.
 */
async function signUpToPasskeyStep (t: Test, answers: Record<string, [number, unknown]> = {}) {
  const browser: StandInBrowser = installStandInBrowser(t, { conditionalMediation: false })
  localStorage.clear()
  t.teardown(() => localStorage.clear())
  const { base, upstream } = await startBackend(t, answersByPath({
    '/email-code/send': [200, { success: SENT, expires_in: 600 }],
    '/email-code/login': [200, { ...TOKENS, registered: true }],
    '/passkeys/register/options': [200, { options: creationOptions }],
    '/passkeys/register': [200, { success: 'Passkey saved.' }],
    ...answers
  }), { accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, EMAIL_CODE_ROUTES, PASSKEY_ROUTES) })
  const page = renderPage(t, base, '?view=register&redirect=%2Fapp', PASSKEY_SIGN_UP)
  const { user } = page
  await user.click(await screen.findByRole('button', { name: 'Sign up with a passkey' }))
  const request = await screen.findByRole('heading', { name: 'Sign up with an emailed code' })
  t.equal(document.activeElement, request, 'the request step\'s heading takes the focus')
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.click(screen.getByRole('button', { name: 'Email me a code' }))
  await screen.findByRole('heading', { name: 'Check your email' })
  t.same(lastBody(upstream, '/email-code/send'), { email: 'ada@example.test' }, 'a code first: the address proven before any account')
  await user.type(screen.getByLabelText('Code from the email'), 'ABCD-EFGH')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
  const heading = await screen.findByRole('heading', { name: 'Create your passkey' })
  await eventuallyOk(t, () => document.activeElement === heading, 'the passkey step\'s heading takes the focus')
  t.ok(screen.getByText('Your address is confirmed. Create a passkey to sign in next time without a password or a code.'))
  t.match(document.cookie, /auth=eyJ\.email-code/, 'signed in by the code: its tokens stored before the passkey')
  t.equal(window.location.pathname, '/', 'the page waits for the visitor')
  return { ...page, base, upstream, browser }
}

t.test('the register view offers a passkey sign-up only with passkeys on and the emailed code answered', async (t) => {
  const { base } = await setUp(t)
  const without = renderPage(t, base, '?view=register', { emailCodes: true, passkeyRpId: null })
  await screen.findByRole('button', { name: 'Sign up with an emailed code' })
  t.notOk(screen.queryByRole('button', { name: 'Sign up with a passkey' }), 'passkeys off')
  without.unmount()
  const login = renderPage(t, base, '', PASSKEY_SIGN_UP)
  t.notOk(screen.queryByRole('button', { name: 'Sign up with a passkey' }), 'never on the login view')
  login.unmount()
  renderPage(t, base, '?view=register', { emailCodes: false, passkeyRpId: 'localhost' })
  await screen.findByRole('button', { name: 'Sign Up' })
  t.notOk(screen.queryByRole('button', { name: 'Sign up with a passkey' }), 'no emailed code, no passkey sign-up')
})

t.test('a passkey sign-up: code, then the passkey step; "Not now" leaves without a passkey', async (t) => {
  const { user, base, upstream, browser } = await signUpToPasskeyStep(t)
  await user.click(screen.getByRole('button', { name: 'Not now' }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.equal(browser.calls.filter((call) => call.kind === 'create').length, 0, 'no ceremony')
  t.notOk(upstream.requests.some((request) => request.url.startsWith('/passkeys/')), 'no passkey call')
  t.equal(localStorage.getItem('threshold:last-sign-in-method'), 'email-code', 'the sign-in\'s method, the code')
})

t.test('a passkey sign-up: "Create a passkey" registers one with the sign-in\'s tokens, then leaves', async (t) => {
  const { user, base, upstream, browser } = await signUpToPasskeyStep(t)
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  await user.click(screen.getByRole('button', { name: 'Create a passkey' }))
  await eventually(t, () => window.location.href, `${base}/app`)
  const created = browser.calls.filter((call) => call.kind === 'create')
  t.equal(created.length, 1, 'one ceremony')
  t.equal(created[0]!.options.mediation, undefined, 'the browser\'s prompt')
  t.same(lastBody(upstream, '/passkeys/register/options'), { conditional: false })
  t.same(lastBody(upstream, '/passkeys/register'), { credential: attestation, conditional: false })
  const register = upstream.requests.find((request) => request.url === '/passkeys/register')
  t.equal(register?.headers.authorization, 'Bearer eyJ.email-code', 'the code\'s sign-in is the fresh proof')
})

t.test('a passkey sign-up: a prompt the visitor closed leaves the step as it was, nothing said', async (t) => {
  const { user, browser, upstream } = await signUpToPasskeyStep(t)
  browser.answerCreate = () => ({ error: 'NotAllowedError' })
  await user.click(screen.getByRole('button', { name: 'Create a passkey' }))
  await eventually(t, () => browser.calls.filter((call) => call.kind === 'create').length, 1)
  await eventuallyOk(t, () => !screen.getByRole('button', { name: 'Create a passkey' }).hasAttribute('disabled'), 'ready again')
  t.equal(document.querySelector('section [role="alert"]')?.textContent, '', 'nothing said')
  t.equal(lastBody(upstream, '/passkeys/register'), undefined, 'nothing registered')
  t.ok(screen.getByRole('heading', { name: 'Create your passkey' }), 'the step stays')
})

t.test('a passkey sign-up whose passkey the service refuses: the failure is said and the step stays', async (t) => {
  const { user, browser } = await signUpToPasskeyStep(t, { '/passkeys/register': [400, { error: 'The passkey could not be verified.' }] })
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  await user.click(screen.getByRole('button', { name: 'Create a passkey' }))
  await eventuallyOk(t, () => (document.querySelector('section [role="alert"]')?.textContent ?? '') !== '', 'a failure is said')
  t.equal(window.location.pathname, '/', 'the page stays')
  t.ok(screen.getByRole('button', { name: 'Not now' }), '"Not now" still leaves')
})
