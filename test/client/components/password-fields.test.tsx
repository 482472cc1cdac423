import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t from 'tap'
import { jsonAnswer } from '../../fixtures/servers/edge.js'
import { english } from '../../fixtures/languages/messages.js'
import { renderPage, startBackend } from '../../fixtures/page/page.js'

/**
 * Paste and password managers always work: every password field
 * says what it holds in `autocomplete` (a manager fills the current password
 * and offers to make a new one), and a pasted password lands in the field,
 * whole: nothing blocks paste, cuts it to a length, or trims it.
 */

const VIEWS = [
  ['login', '', 'current-password', 1],
  ['register', '?view=register', 'new-password', 2],
  ['setPassword', '?view=setPassword&token=reset-token-1', 'new-password', 2]
] as const

/** Long, with spaces at both ends and characters a composition rule would frown at: what a manager generates or a visitor pastes. */
const PASTED = '  correct horse battery staple ✓ 𝄞 0123456789012345678901234567890123456789012345678901234567890123  '

t.test('the new password\'s hint says the minimum the page is given (PASSWORD_MIN_LENGTH), 8 by default', async (t) => {
  const { base } = await startBackend(t, jsonAnswer(404, {}), { passwordResetCompletion: true })
  for (const query of ['?view=register', '?view=setPassword&token=reset-token-1']) {
    await t.test(query, async (t) => {
      renderPage(t, base, query, { passwordMinLength: 15 })
      t.ok(screen.getByText(english('field.passwordHint', { min: 15 })), 'At least 15 characters.')
      t.equal(screen.queryByText(/\{min\}|At least 8/), null, 'no placeholder, no other minimum')
    })
    await t.test(`${query}, by default`, async (t) => {
      renderPage(t, base, query)
      t.ok(screen.getByText('At least 8 characters.'))
    })
  }
})

for (const [view, query, autocomplete, count] of VIEWS) {
  t.test(`${view}: each password field asks for ${autocomplete}, and a pasted password is taken whole`, async (t) => {
    const { base } = await startBackend(t, jsonAnswer(404, {}), { passwordResetCompletion: true })
    const { user } = renderPage(t, base, query)
    const fields = [...document.querySelectorAll<HTMLInputElement>('input[type="password"]')]
    t.equal(fields.length, count, `${count} password field(s)`)
    for (const field of fields) {
      t.equal(field.getAttribute('autocomplete'), autocomplete, `${field.name}: autocomplete`)
      t.notOk(field.hasAttribute('maxlength'), `${field.name}: no length cut`)
      t.notOk(field.hasAttribute('onpaste'), `${field.name}: no paste handler in the markup`)
      await user.click(field)
      await user.paste(PASTED)
      t.equal(field.value, PASTED, `${field.name}: the paste is in the field, whole`)
    }
    t.ok(screen.getAllByRole('button', { name: /Show/ }).length >= count, 'each can be shown, to check what was pasted')
  })
}
