import '../../fixtures/page/dom.js'
import { act, screen } from '@testing-library/react'
import t from 'tap'
import { NOTICE_MESSAGE_KEYS } from '../../../common/page/page-notices.js'
import { english } from '../../fixtures/languages/messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { answersByPath, eventually, eventuallyOk, renderPage, startBackend } from '../../fixtures/page/page.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/**
 * The `notice` parameter, with which the accounts service sends the browser
 * back from an emailed link: its text above the form on its own view, as a
 * success (role=status) or an error (role=alert), and nowhere else.
 */

const HEADINGS = { login: english('heading.login'), register: english('heading.register'), resetPassword: english('heading.resetPassword'), setPassword: english('heading.setPassword') }
type ViewName = keyof typeof HEADINGS
const viewQuery = (view: ViewName): string => (view === 'login' ? '' : `view=${view}&token=tok_1234567890&`)

/** The text above the form, and the role it is announced with; null when there is none. */
function formNotice (): { role: string | null, text: string, className: string } | null {
  const notice = document.getElementById('form-notice')!
  return notice.textContent === '' ? null : { role: notice.getAttribute('role'), text: notice.textContent ?? '', className: notice.className }
}

t.test('each notice shows its text on its own view, with the role and look of a success or an error, and on no other view', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const places: Array<[keyof typeof NOTICE_MESSAGE_KEYS, ViewName, 'success' | 'error']> = [
    ['email-verified', 'login', 'success'],
    ['verify-link-invalid', 'login', 'error'],
    ['verify-in-known-browser', 'login', 'error'],
    ['sessions-ended', 'setPassword', 'success'],
    ['end-sessions', 'setPassword', 'success'],
    ['undo-change', 'setPassword', 'success'],
    ['end-sessions-link-invalid', 'resetPassword', 'error'],
    ['email-changed', 'login', 'success'],
    ['email-change-link-invalid', 'login', 'error'],
    ['email-change-in-known-browser', 'login', 'error']
  ]
  for (const [code, ownView, kind] of places) {
    for (const view of Object.keys(HEADINGS) as ViewName[]) {
      const { unmount } = renderPage(t, base, `?${viewQuery(view)}notice=${code}`)
      t.equal(screen.getByRole('heading', { level: 1 }).textContent, HEADINGS[view], `${code} on ${view}: the view`)
      if (view === ownView) {
        t.same(formNotice(), { role: kind === 'success' ? 'status' : 'alert', text: english(NOTICE_MESSAGE_KEYS[code]), className: `notice notice--${kind}` }, `${code} on ${view}: shown`)
      } else {
        t.equal(formNotice(), null, `${code} on ${view}: not shown`)
      }
      unmount()
    }
  }
})

t.test('an unknown notice is ignored: no text above the form', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  for (const value of ['password-changed', 'EMAIL-VERIFIED', 'Your account was deleted.']) {
    const { unmount } = renderPage(t, base, `?notice=${encodeURIComponent(value)}`)
    t.equal(formNotice(), null, value)
    t.notOk(document.body.textContent?.includes(value), `${value}: nowhere on the page`)
    unmount()
  }
})

t.test('the error parameter wins over a notice: the spec\'s message is shown', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '?error=INACTIVITY_LOGOUT&notice=email-verified')
  t.same(formNotice()?.text, english('error.INACTIVITY_LOGOUT'))
})

t.test('the notice leaves the address bar once read, other parameters staying; the text stays on the page', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '?view=setPassword&token=tok_1234567890&notice=sessions-ended&redirect=%2Fapp#top')
  await eventually(t, () => window.location.search, '?view=setPassword&token=tok_1234567890&redirect=%2Fapp')
  t.equal(window.location.hash, '#top', 'the hash is kept')
  t.equal(formNotice()?.text, english('notice.sessionsEnded'), 'still shown')
  t.notMatch(screen.getByRole('link', { name: 'Back to Login' }).getAttribute('href'), /notice/, 'links to other views do not carry it')
})

t.test('an unknown or misplaced notice leaves the address bar too', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  renderPage(t, base, '?view=register&notice=email-verified')
  await eventually(t, () => window.location.search, '?view=register')
})

t.test('a notice goes once the visitor switches view, and does not come back with its view', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base, '?notice=email-verified')
  t.equal(formNotice()?.text, english('notice.emailVerified'))
  await user.click(screen.getByRole('link', { name: 'Sign Up' }))
  t.equal(formNotice(), null, 'not on the register view')
  await user.click(screen.getByRole('link', { name: 'Login' }))
  t.equal(formNotice(), null, 'not back on the login view')
})

t.test('a success notice goes once the visitor logs in; the answer takes its place', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [401, { error: 'Invalid email or password.' }] }, 300))
  const { user } = renderPage(t, base, '?notice=email-verified')
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  t.equal(formNotice(), null, 'gone while the login runs')
  await eventually(t, () => formNotice()?.text, 'Invalid email or password.')
})

t.test('an error notice goes once the visitor asks for a reset; the answer takes its place', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/resetPasswordRequest': [200, { success: 'Check your email.' }] }, 300))
  const { user } = renderPage(t, base, '?view=resetPassword&notice=end-sessions-link-invalid')
  t.equal(formNotice()?.role, 'alert')
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.click(screen.getByRole('button', { name: 'Send a Password Reset Email' }))
  t.equal(formNotice(), null, 'gone while the request runs')
  await eventually(t, () => formNotice()?.text, 'Check your email.')
})

t.test('the sessions-ended notice goes once the new password is submitted', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/resetPassword': [400, { error: 'Passwords do not match.' }] }, 300), {
    accountsRoutes: REFERENCE_ACCOUNTS_ROUTES
  })
  const { user } = renderPage(t, base, '?view=setPassword&token=tok_1234567890&notice=sessions-ended')
  t.equal(formNotice()?.role, 'status')
  await user.type(screen.getByLabelText('New Password'), 'a new passphrase')
  await user.type(screen.getByLabelText('Confirm Password'), 'another passphrase')
  await user.click(screen.getByRole('button', { name: 'Set New Password' }))
  t.equal(formNotice(), null, 'gone while the request runs')
  await eventually(t, () => formNotice()?.text, 'Passwords do not match.')
})

t.test('the back button does not bring a notice back once it has gone', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const { user } = renderPage(t, base, '?notice=email-verified')
  await eventuallyOk(t, () => !window.location.search.includes('notice'))
  await user.click(screen.getByRole('link', { name: 'Sign Up' }))
  await act(async () => {
    window.history.back()
    await new Promise((resolve) => setTimeout(resolve, 50))
  })
  await eventually(t, () => screen.getByRole('heading', { level: 1 }).textContent, HEADINGS.login)
  t.equal(formNotice(), null)
})
