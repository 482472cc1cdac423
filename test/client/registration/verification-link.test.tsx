import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import type { ServerResponse } from 'node:http'
import t from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { jsonAnswer, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/**
 * A login refused because the address is not verified yet (403 with the
 * reason email_not_verified) offers a new verification link: the page asks
 * for it through the real edge, from a real upstream.
 */

const REFUSAL = 'Verify your email address before you log in: follow the link we emailed you.'
const UNVERIFIED: [number, unknown] = [403, { error: REFUSAL, reason: 'email_not_verified' }]
const SEND = english('login.sendVerificationLink')

/** An upstream that answers each path with its own JSON, each after its own delay. */
function routes (answers: Record<string, [number, unknown]>, delaysMs: Record<string, number> = {}) {
  return (request: RecordedRequest, response: ServerResponse) => {
    const path = request.url.split('?')[0]!
    const [status, body] = answers[path] ?? [404, { error: 'Not found.' }]
    setTimeout(() => jsonAnswer(status, body)(request, response), delaysMs[path] ?? 0)
  }
}

async function startService (t: Parameters<typeof startBackend>[0], answers: Record<string, [number, unknown]>, delaysMs: Record<string, number> = {}) {
  return startBackend(t, routes(answers, delaysMs), { accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
}

/** Logs in as ada@example.test and waits for the refusal. */
async function refusedLogin (t: Parameters<typeof startBackend>[0], user: ReturnType<typeof renderPage>['user']) {
  await signInOnView(user, 'ada@example.test', 'correct horse', { pressEnter: true })
  await eventually(t, () => screen.queryByRole('alert')?.textContent, REFUSAL, 'the refusal, as the service wrote it')
}

const sendButton = () => screen.queryByRole('button', { name: SEND })
/** Whether the button is there (a boolean: tap cannot print a DOM element it did not expect). */
const offered = (): boolean => sendButton() !== null

t.test('a login refused for an unverified address offers a new link, which is sent to the email field\'s address', async (t) => {
  const { base, upstream } = await startService(t, {
    '/v2/login': UNVERIFIED,
    '/verifyEmailRequest': [200, { success: 'We have sent a new link to ada@example.test.' }]
  })
  const { user } = renderPage(t, base)
  t.notOk(offered(), 'no offer before the refusal')
  await refusedLogin(t, user)
  await eventuallyOk(t, () => offered() && !sendButton()!.hasAttribute('disabled'), 'the button, enabled')
  t.equal(sendButton()!.getAttribute('aria-describedby'), 'form-notice', 'described by the refusal')
  await eventuallyOk(t, () => document.activeElement === sendButton(), 'it takes focus: it is what the visitor can do about the refusal')

  await user.click(sendButton()!)
  await eventually(t, () => screen.queryByRole('status')?.textContent, 'We have sent a new link to ada@example.test.')
  t.same(lastBody(upstream, '/verifyEmailRequest'), { email: 'ada@example.test' })
  t.notOk(offered(), 'the offer ends once the link is sent')
  await eventuallyOk(t, () => document.activeElement === screen.getByLabelText('Email'), 'focus moves on to the first field, not to the document')
  t.equal(screen.getByLabelText('Email').getAttribute('aria-invalid'), null, 'the fields are no longer marked')
})

t.test('a sent link without a text of its own says so in the catalogue\'s words', async (t) => {
  const { base } = await startService(t, { '/v2/login': UNVERIFIED, '/verifyEmailRequest': [200, {}] })
  const { user } = renderPage(t, base)
  await refusedLogin(t, user)
  await eventuallyOk(t, () => offered())
  await user.click(sendButton()!)
  await eventually(t, () => screen.queryByRole('status')?.textContent, english('success.verificationLinkSent'))
})

t.test('the link is sent to the address in the email field when the button is pressed', async (t) => {
  const { base, upstream } = await startService(t, { '/v2/login': UNVERIFIED, '/verifyEmailRequest': [200, { success: 'Sent.' }] })
  const { user } = renderPage(t, base)
  await refusedLogin(t, user)
  await user.clear(screen.getByLabelText('Email'))
  await user.type(screen.getByLabelText('Email'), 'ada.lovelace@example.test')
  await user.click(sendButton()!)
  await eventually(t, () => screen.queryByRole('status')?.textContent, 'Sent.')
  t.same(lastBody(upstream, '/verifyEmailRequest'), { email: 'ada.lovelace@example.test' })
})

t.test('a refused request shows its error and keeps the offer, with focus back on the button', async (t) => {
  const { base } = await startService(t, {
    '/v2/login': UNVERIFIED,
    '/verifyEmailRequest': [429, { error: 'Too many requests. Try again in a few minutes.' }]
  })
  const { user } = renderPage(t, base)
  await refusedLogin(t, user)
  await eventuallyOk(t, () => offered())
  await user.click(sendButton()!)
  await eventually(t, () => screen.queryByRole('alert')?.textContent, 'Too many requests. Try again in a few minutes.')
  await eventuallyOk(t, () => offered() && !sendButton()!.hasAttribute('disabled'), 'the button stays, to try again later')
  await eventuallyOk(t, () => document.activeElement === sendButton(), 'focus is on the button again')
})

t.test('an unreadable answer to the request shows the generic message and keeps the offer', async (t) => {
  const { base } = await startService(t, { '/v2/login': UNVERIFIED, '/verifyEmailRequest': [500, {}] })
  const { user } = renderPage(t, base)
  await refusedLogin(t, user)
  await eventuallyOk(t, () => offered())
  await user.click(sendButton()!)
  await eventually(t, () => screen.queryByRole('alert')?.textContent, english('error.GENERIC'))
  t.ok(offered(), 'the button stays')
})

t.test('while the request runs its button is busy, every button is disabled and the refusal is hidden', async (t) => {
  const { base } = await startService(t, { '/v2/login': UNVERIFIED, '/verifyEmailRequest': [200, { success: 'Sent.' }] }, { '/verifyEmailRequest': 400 })
  const { user } = renderPage(t, base)
  await refusedLogin(t, user)
  await eventuallyOk(t, () => offered() && !sendButton()!.hasAttribute('disabled'))
  await user.click(sendButton()!)
  await eventually(t, () => sendButton()?.getAttribute('aria-busy'), 'true')
  t.ok(sendButton()!.hasAttribute('disabled'), 'the button is disabled')
  t.ok(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'so is Login')
  t.ok(screen.getByRole('button', { name: 'Login with Custom SSO provider' }).hasAttribute('disabled'), 'and the SSO button')
  t.equal(screen.queryByRole('alert')?.textContent ?? '', '', 'the refusal is hidden while the request runs')
  await eventually(t, () => screen.queryByRole('status')?.textContent, 'Sent.')
})

t.test('no offer after a login refused for any other reason', async (t) => {
  const refusals: Array<[string, [number, unknown]]> = [
    ['a plain 401', [401, { error: 'Invalid email or password.' }]],
    ['a 403 without the reason', [403, { error: 'Your account is not in this organisation.' }]],
    ['a 403 with another reason', [403, { error: 'This account is locked.', reason: 'account_locked' }]],
    ['the reason with 401', [401, { error: 'Invalid email or password.', reason: 'email_not_verified' }]]
  ]
  for (const [what, answer] of refusals) {
    const { base } = await startService(t, { '/v2/login': answer })
    const { user, unmount } = renderPage(t, base)
    await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
    await eventually(t, () => screen.queryByRole('alert')?.textContent, (answer[1] as { error: string }).error, `${what}: the text`)
    t.notOk(offered(), `${what}: no offer`)
    unmount()
  }
})

t.test('the offer goes once the visitor logs in again, whatever the new answer', async (t) => {
  let refusal: [number, unknown] = UNVERIFIED
  const { base } = await startBackend(t, (request, response) => {
    setTimeout(() => jsonAnswer(...refusal)(request, response), 300)
  }, { accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
  const { user } = renderPage(t, base)
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  await eventuallyOk(t, () => offered(), 'offered')
  refusal = [401, { error: 'Invalid email or password.' }]
  await user.click(screen.getByRole('button', { name: 'Login' }))
  t.notOk(offered(), 'gone as soon as the login is submitted again')
  await eventually(t, () => screen.queryByRole('alert')?.textContent, 'Invalid email or password.')
  t.notOk(offered(), 'and not back with the new refusal')
})

t.test('the offer goes when the visitor changes view, and does not come back with the login view', async (t) => {
  const { base } = await startService(t, { '/v2/login': UNVERIFIED })
  const { user } = renderPage(t, base)
  await refusedLogin(t, user)
  await eventuallyOk(t, () => offered())
  await user.click(screen.getByRole('link', { name: 'Forgot Password' }))
  t.notOk(offered(), 'not on the reset view')
  await user.click(screen.getByRole('link', { name: 'Back to Login' }))
  t.notOk(offered(), 'not back on the login view')
  t.equal(screen.queryByRole('alert')?.textContent ?? '', '', 'nor is the refusal')
})

t.test('keyboard: the button is reached with Tab and pressed with Enter or Space', async (t) => {
  const { base, upstream } = await startService(t, {
    '/v2/login': UNVERIFIED,
    '/verifyEmailRequest': [429, { error: 'Too many requests. Try again in a few minutes.' }]
  })
  const { user } = renderPage(t, base)
  await refusedLogin(t, user)
  await eventuallyOk(t, () => offered() && document.activeElement === sendButton())

  // From the first field, back with Shift+Tab: it sits between the refusal and the form.
  screen.getByLabelText('Email').focus()
  await user.tab({ shift: true })
  await eventuallyOk(t, () => document.activeElement === sendButton(), 'Shift+Tab from the email field reaches it')
  // From the top of the page, forward with Tab: it is the first stop.
  ;(document.activeElement as HTMLElement).blur()
  await user.tab()
  await eventuallyOk(t, () => document.activeElement === sendButton(), 'Tab from the top of the page reaches it first')

  await user.keyboard('{Enter}')
  await eventually(t, () => upstream.requests.filter((request) => request.url === '/verifyEmailRequest').length, 1, 'Enter sends the request')
  await eventuallyOk(t, () => document.activeElement === sendButton() && !sendButton()!.hasAttribute('disabled'), 'focus is back on the button')
  await user.keyboard(' ')
  await eventually(t, () => upstream.requests.filter((request) => request.url === '/verifyEmailRequest').length, 2, 'Space sends it too')
})
