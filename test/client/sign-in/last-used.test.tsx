import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t, { type Test } from 'tap'
import { answersByPath, eventually, eventuallyOk, renderPage, startBackend } from '../../fixtures/page/page.js'
import { storageRefusing } from '../../fixtures/page/storage.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

const KEY = 'threshold:last-sign-in-method'
const TOKENS = { auth: 'eyJ.last-used', refresh: 'refresh-last-used' }

async function setUp (t: Test) {
  localStorage.clear()
  t.teardown(() => localStorage.clear())
  return await startBackend(t, answersByPath({ '/v2/login': [200, TOKENS], '/v2/auth/login': [200, TOKENS] }))
}

/** The methods' buttons below the divider, in order. */
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
