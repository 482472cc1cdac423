import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { jsonAnswer, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { english } from '../../fixtures/languages/messages.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'

/*
 * The set-password view once done, when the reset's answer lists what was
 * added to the account in the last 30 days (docs/account-changes.md):
 * through the real edge in front of a stand-in service, driven by role.
 */

const REVIEW_TOKEN = 'r'.repeat(43)
const PASSKEY = { id: 'cGFzc2tleS0x', name: 'Chrome on Windows', created_at: '2026-11-18T10:00:00.000Z' }
const LISTED = {
  success: 'Password changed.',
  recent_factors: { passkeys: [PASSKEY], second_factor: { enrolled_at: '2026-11-20T10:00:00.000Z' } },
  review_token: REVIEW_TOKEN
}
const dated = (iso: string): string => new Intl.DateTimeFormat('en', { dateStyle: 'long' }).format(new Date(iso))

/** The stand-in service: the reset's answer, and each removal's answer in turn (the last one repeats). */
async function setUp (t: Test, reset: unknown, removals: Array<[number, unknown]>) {
  const { base, upstream } = await startBackend(t, (request: RecordedRequest, response: ServerResponse) => {
    const path = request.url.split('?')[0]
    if (path === '/resetPassword') return jsonAnswer(200, reset)(request, response)
    if (path === '/recentFactors/remove') {
      const [status, body] = removals.length > 1 ? removals.shift()! : removals[0]!
      return jsonAnswer(status, body)(request, response)
    }
    jsonAnswer(404, { error: 'Not found.' })(request, response)
  }, { accountsRoutes: REFERENCE_ACCOUNTS_ROUTES, passwordResetCompletion: true })
  const { user } = renderPage(t, base, '?view=setPassword&token=tok_1234567890abcdefghij')
  await user.type(screen.getByLabelText('New Password'), 'a new passphrase')
  await user.type(screen.getByLabelText('Confirm Password'), 'a new passphrase')
  await user.click(screen.getByRole('button', { name: 'Set New Password' }))
  return { upstream, user }
}

t.test('a reset that lists recent factors stays on its view, done: each with a Remove button, the heading focused', async (t) => {
  await setUp(t, LISTED, [[200, { success: 'Removed.' }]])
  const heading = await screen.findByRole('heading', { name: english('recentFactors.heading', { days: 30 }) })
  await eventuallyOk(t, () => document.activeElement === heading, 'the heading has the focus the form had')
  t.equal(screen.getAllByRole('status')[0]!.textContent, 'Password changed.', 'the password is set, and says so')
  t.equal(screen.queryByLabelText('New Password'), null, 'the form gave its place to the list')
  const items = within(screen.getByRole('list')).getAllByRole('listitem')
  t.equal(items.length, 2)
  t.match(items[0]!.textContent, english('recentFactors.passkey', { name: 'Chrome on Windows', date: dated(PASSKEY.created_at) }))
  t.match(items[1]!.textContent, english('recentFactors.secondFactor', { date: dated('2026-11-20T10:00:00.000Z') }))
  t.ok(within(items[0]!).getByRole('button', { name: 'Remove passkey “Chrome on Windows”' }))
  t.ok(within(items[1]!).getByRole('button', { name: 'Remove authenticator app' }))
  t.ok(screen.getByRole('link', { name: english('links.backToLogin') }), 'and the way on to sign in')
  t.equal(new URLSearchParams(window.location.search).get('token'), null, 'the used token leaves the address bar')
})

t.test('Remove takes an item away in one step, says so in a live region, and moves the focus to the next item', async (t) => {
  const { upstream, user } = await setUp(t, LISTED, [[200, { success: 'Removed.' }]])
  await user.click(await screen.findByRole('button', { name: 'Remove passkey “Chrome on Windows”' }))
  const said = english('recentFactors.removedPasskey', { name: 'Chrome on Windows' })
  await eventuallyOk(t, () => screen.queryByText(said) !== null, 'the removal is said')
  t.ok(screen.getByText(said).closest('[role="status"]'), 'in a live region')
  t.same(lastBody(upstream, '/recentFactors/remove'), { review_token: REVIEW_TOKEN, passkey_id: PASSKEY.id })
  t.equal(screen.queryByRole('button', { name: 'Remove passkey “Chrome on Windows”' }), null, 'the item is gone')
  const next = screen.getByRole('button', { name: 'Remove authenticator app' })
  await eventuallyOk(t, () => document.activeElement === next, 'the focus is on the next item, not lost')

  await user.click(next)
  await eventuallyOk(t, () => screen.queryByText(english('recentFactors.noneLeft')) !== null, 'nothing left')
  t.same(lastBody(upstream, '/recentFactors/remove'), { review_token: REVIEW_TOKEN, second_factor: true })
  const heading = screen.getByRole('heading', { name: english('recentFactors.heading', { days: 30 }) })
  await eventuallyOk(t, () => document.activeElement === heading, 'with the last one gone, the heading has the focus')
  t.match(screen.getByText(english('recentFactors.removedSecondFactor')).closest('[role="status"]'), {}, 'said in the live region')
})

t.test('a refused removal is said in an alert and the item stays, to be tried again', async (t) => {
  const { user } = await setUp(t, LISTED, [[401, { error: 'This list has expired.' }], [200, { success: 'Removed.' }]])
  await user.click(await screen.findByRole('button', { name: 'Remove authenticator app' }))
  await eventually(t, () => screen.queryByRole('alert')?.textContent, 'This list has expired.')
  const button = screen.getByRole('button', { name: 'Remove authenticator app' })
  await user.click(button)
  await eventuallyOk(t, () => screen.queryByRole('alert') === null && screen.queryByRole('button', { name: 'Remove authenticator app' }) === null, 'the second try removes it')
})

t.test('a reset with nothing to list goes on to the login view, as before', async (t) => {
  await setUp(t, { success: 'Password changed.' }, [])
  await eventuallyOk(t, () => screen.queryByRole('button', { name: 'Login' }) !== null, 'the login view')
  t.equal(new URLSearchParams(window.location.search).get('view'), null)
  t.equal(screen.queryByRole('list'), null)
})
