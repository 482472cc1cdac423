import { useId, useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { TextField } from '../components/TextField.js'
import { useMessages } from '../languages/messages.js'
import { clearTokenCookies } from '../sessions/signed-in-session.js'
import { deleteAccount } from './account-calls.js'
import { AccountSection, ChangeResult, CurrentPasswordField, ProofInPlace } from './AccountSection.js'
import { useAccountChange, type AccountSession } from './useAccountChange.js'

interface DeleteSectionProps {
  readonly session: AccountSession
  readonly email: string
  readonly hasPassword: boolean
  readonly cookieDomain: string | null
}

/**
 * "Delete account": the account's address typed again, as the
 * confirmation, and a fresh proof; the account, its sessions and its data
 * go (docs/account-changes.md says what logs and backups keep). Posted
 * without scripts as `account-delete`; with scripts, `account/delete`, then
 * the login view, saying so.
 */
export function DeleteSection ({ session, email, hasPassword, cookieDomain }: DeleteSectionProps) {
  const { text } = useMessages()
  const id = useId()
  const [confirmation, setConfirmation] = useState('')
  const [mismatch, setMismatch] = useState(false)
  const change = useAccountChange('delete', session, async (auth, confirmEmail: string) => await deleteAccount(auth, confirmEmail), () => {
    clearTokenCookies(cookieDomain)
    session.leave({ kind: 'success', text: text('account.delete.deleted') })
  })

  function submit (event: FormEvent): void {
    event.preventDefault()
    const typed = confirmation.trim()
    // The service checks it too: this only spares a round trip for a typing slip.
    setMismatch(typed.toLowerCase() !== email.toLowerCase())
    if (typed.toLowerCase() === email.toLowerCase() && !change.running) change.run(typed)
  }

  return (
    <AccountSection id={id} title={text('account.delete.heading')}>
      <p id={`${id}-explanation`}>{text('account.delete.explanation')}</p>
      <ChangeResult done={null} error={mismatch ? text('account.delete.mismatch') : change.error} />
      <ProofInPlace proof={change.proof}>
        <form method='post' className='form' noValidate onSubmit={submit} aria-describedby={`${id}-explanation`}>
          <FormName name='account-delete' />
          <TextField label={text('account.delete.confirmLabel', { email })} type='email' name='confirmEmail' autoComplete='off' width='full' spellCheck={false}
            value={confirmation} onChange={setConfirmation} invalid={mismatch || change.error !== null} />
          {hasPassword && <CurrentPasswordField label={text('account.password.current')} />}
          <Button type='submit' busy={change.running}>{text('account.delete.submit')}</Button>
        </form>
      </ProofInPlace>
    </AccountSection>
  )
}
