import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t, { type Test } from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { PASSKEY_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import type { GoogleIdentityServices } from '../../../client/google/google-identity-services.js'
import { answersByPath, eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { installStandInBrowser, standInCredential } from '../../fixtures/passkeys/webauthn-browser.js'
import { storageRefusing } from '../../fixtures/page/storage.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

const KEY = 'threshold:last-sign-in-method'
const TOKENS = { auth: 'eyJ.last-used', refresh: 'refresh-last-used' }
const PASSKEYS_ON = { passkeyRpId: 'localhost' }
const GOOGLE_ON = { googleClientId: 'threshold-tests.apps.googleusercontent.com' }
const assertion = { id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA', userHandle: 'dXNlcg' } }

async function setUp (t: Test) {
  localStorage.clear()
  t.teardown(() => localStorage.clear())
  return await startBackend(t, answersByPath({
    '/v2/login': [200, TOKENS],
    '/v2/auth/login': [200, TOKENS],
    '/passkeys/login/options': [200, { options: { challenge: 'Y2hhbGxlbmdl', rpId: 'localhost', userVerification: 'required', allowCredentials: [] } }],
    '/passkeys/login': [200, { ...TOKENS, email: 'ada@example.test', user_id: 'dXNlcg', credential_ids: ['cred-1'] }]
  }), { accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES) })
}

/**
 * Google's script as the browser would run it (the tests run offline): the
 * page's <script> "loads" (happy-dom, told to, answers a file it does not
 * fetch with `load`), and `google.accounts.id` is there. Its button, rendered
 * into the page's hidden host, hands over a credential for ada@example.test
 * when clicked.
 */
function standInGoogle (t: Test): void {
  let callback: ((response: { credential?: string }) => void) | null = null
  const payload = btoa(JSON.stringify({ email: 'ada@example.test' })).replace(/=+$/, '')
  const services: GoogleIdentityServices = {
    initialize: (options) => { callback = options.callback },
    renderButton: (parent) => {
      const button = document.createElement('div')
      button.setAttribute('role', 'button')
      button.addEventListener('click', () => callback?.({ credential: `e30.${payload}.c2ln` }))
      parent.append(button)
    },
    prompt: () => {}
  }
  const settings = (window as unknown as { happyDOM: { settings: { handleDisabledFileLoadingAsSuccess: boolean } } }).happyDOM.settings
  settings.handleDisabledFileLoadingAsSuccess = true
  window.google = { accounts: { id: services } }
  t.teardown(() => {
    settings.handleDisabledFileLoadingAsSuccess = false
    delete window.google
  })
}

/** The methods' buttons in their columns, in order. */
const methodButtons = (): string[] => [...document.querySelectorAll('.methods button')].map((button) => button.textContent ?? '')

t.test('a password sign-in is the one used last: the Login button is marked where it stands', async (t) => {
  const { base } = await setUp(t)
  const first = renderPage(t, base, '?redirect=%2Fapp')
  t.notOk(screen.queryByText('Last used'), 'nothing marked before any sign-in')
  await signInOnView(first.user)
  await eventually(t, () => window.location.pathname, '/app')
  t.equal(localStorage.getItem(KEY), 'password')
  first.unmount()
  renderPage(t, base, '')
  const mark = await screen.findByText('Last used')
  t.equal(mark.closest('form')?.querySelector('input[name="form"]')?.getAttribute('value'), 'login', 'beside the Login button, in its form')
  t.equal(methodButtons()[0], 'Login with Custom SSO provider', 'the other methods keep their order')
})

t.test('an SSO sign-in is the one used last: its button first among the methods, with the tag', async (t) => {
  const { base } = await setUp(t)
  const sso = renderPage(t, base, '?oidc=1&email=ada%40corp.test&id=one-time-id&login=1&redirect=%2Fapp')
  await eventually(t, () => window.location.pathname, '/app')
  t.equal(localStorage.getItem(KEY), 'sso')
  sso.unmount()
  renderPage(t, base, '', { emailCodes: true })
  await screen.findByText('Last used')
  t.same(methodButtons().slice(0, 2), ['Login with Custom SSO provider', '×'], 'SSO first, its dismiss button after it')
  t.equal(methodButtons()[2], 'Email me a sign-in code', 'then the others in their order')
})

t.test('a passkey sign-in is the one used last: the passkey\'s button keeps its place, marked', async (t) => {
  const browser = installStandInBrowser(t)
  const { base } = await setUp(t)
  const first = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  browser.answerGet = (call) => call.options.mediation === undefined ? { credential: standInCredential(assertion) } : 'never'
  await first.user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }))
  await eventually(t, () => window.location.pathname, '/app')
  t.equal(localStorage.getItem(KEY), 'passkey')
  first.unmount()
  renderPage(t, base, '', PASSKEYS_ON)
  const mark = await screen.findByText('Last used')
  const passkey = screen.getByRole('button', { name: 'Sign in with a passkey' })
  t.equal(mark.closest('.methods'), passkey.closest('.methods'), 'in the passkey\'s column')
  t.equal(passkey.compareDocumentPosition(mark) & Node.DOCUMENT_POSITION_FOLLOWING, Node.DOCUMENT_POSITION_FOLLOWING, 'after its button')
  t.notOk(mark.closest('form'), 'not in the login form')
  t.equal(methodButtons()[0], 'Sign in with a passkey', 'above the divider, where it always stands')
})

t.test('a Google sign-in is the one used last: its button first among the methods, with the tag', async (t) => {
  standInGoogle(t)
  const { base, upstream } = await setUp(t)
  const first = renderPage(t, base, '?redirect=%2Fapp', GOOGLE_ON)
  const google = screen.getByRole('button', { name: 'Login with Google' })
  await eventuallyOk(t, () => !google.hasAttribute('disabled'), 'ready once Google\'s script has loaded')
  await first.user.click(google)
  await eventually(t, () => window.location.pathname, '/app')
  t.match(lastBody(upstream, '/v2/auth/login'), { email: 'ada@example.test', login_method: 'GOOGLE' }, 'signed in through Google')
  t.equal(localStorage.getItem(KEY), 'google')
  first.unmount()
  renderPage(t, base, '', { ...GOOGLE_ON, emailCodes: true })
  await screen.findByText('Last used')
  t.same(methodButtons().slice(0, 3), ['Login with Google', '×', 'Email me a sign-in code'], 'Google first with its dismiss button, then the others in their order')
})

t.test('a refused Google sign-in marks nothing', async (t) => {
  standInGoogle(t)
  const { base } = await startBackend(t, answersByPath({ '/v2/auth/login': [401, { error: 'No account for this Google address.' }] }))
  localStorage.clear()
  t.teardown(() => localStorage.clear())
  const { user } = renderPage(t, base, '?redirect=%2Fapp', GOOGLE_ON)
  const google = screen.getByRole('button', { name: 'Login with Google' })
  await eventuallyOk(t, () => !google.hasAttribute('disabled'))
  await user.click(google)
  await screen.findByText('No account for this Google address.')
  t.equal(localStorage.getItem(KEY), null)
})

t.test('the dismiss button forgets the method for good', async (t) => {
  const { base } = await setUp(t)
  localStorage.setItem(KEY, 'email-code')
  const { user, unmount } = renderPage(t, base, '', { emailCodes: true })
  await screen.findByText('Last used')
  await user.click(screen.getByRole('button', { name: 'Forget which way I signed in last' }))
  t.notOk(screen.queryByText('Last used'))
  t.equal(localStorage.getItem(KEY), null)
  t.equal(methodButtons()[0], 'Email me a sign-in code', 'the order as it was')
  unmount()
})

t.test('an unknown stored value marks nothing', async (t) => {
  const { base } = await setUp(t)
  localStorage.setItem(KEY, '<img src=x>')
  renderPage(t, base, '', { emailCodes: true })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.notOk(screen.queryByText('Last used'))
})

for (const refusal of ['getItem', 'setItem', 'access'] as const) {
  t.test(`storage that refuses (${refusal}) means no mark, and the sign-in goes on`, async (t) => {
    const { base } = await setUp(t)
    localStorage.setItem(KEY, 'password')
    const restore = storageRefusing(refusal, 'localStorage')
    t.teardown(restore)
    const { user } = renderPage(t, base, '?redirect=%2Fapp')
    if (refusal !== 'setItem') {
      await new Promise((resolve) => setTimeout(resolve, 50))
      t.notOk(screen.queryByText('Last used'), 'nothing marked')
    }
    await signInOnView(user)
    await eventuallyOk(t, () => window.location.pathname === '/app', 'signed in all the same')
  })
}
