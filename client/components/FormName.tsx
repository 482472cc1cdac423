import type { AccountForm } from '../../common/account/account-state.js'

/**
 * The hidden field that names a form for the edge's form posts, which take
 * the forms posted without scripts (docs/page.md, "Before its JavaScript").
 * Every form posts to the page's own address (no `action`), query included.
 */
export function FormName ({ name }: { name: 'login' | 'register' | 'resetPassword' | 'setPassword' | 'sso' | 'social' | 'verificationLink' | 'secondFactor' | 'email-code' | 'email-code-request' | AccountForm }) {
  return <input type='hidden' name='form' value={name} />
}
