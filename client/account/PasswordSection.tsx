import { useId, useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { PasswordField } from '../components/PasswordField.js'
import { useMessages } from '../languages/messages.js'
import { changePassword } from './account-calls.js'
import { AccountSection, ChangeResult, CurrentPasswordField, ProofInPlace } from './AccountSection.js'
import { useAccountChange, type AccountSession } from './useAccountChange.js'

interface PasswordSectionProps {
  readonly session: AccountSession
  /** The account has a password: changed, else set (a passkey, Google or SSO account's first). */
  readonly hasPassword: boolean
  readonly passwordMinLength: number
  /** After the change: the account has a password, and, when asked, no other session. */
  readonly onChanged: (endedOthers: boolean) => void
}

interface PasswordChange {
  readonly newPassword: string
  readonly endOthers: boolean
}

/**
 * "Password" (OWASP ASVS 6.2.2): a new password, typed twice, under the
 * service's rules (its length and breached-password check, as at
 * registration), and whether every other session is to end. Posted without
 * scripts as `account-password` with the current password; with scripts,
 * `password/change`, with the fresh proof asked in place where needed.
 */
export function PasswordSection ({ session, hasPassword, passwordMinLength, onChanged }: PasswordSectionProps) {
  const { text } = useMessages()
  const id = useId()
  const [newPassword, setNewPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const [endOthers, setEndOthers] = useState(false)
  const [mismatch, setMismatch] = useState(false)
  const [done, setDone] = useState<string | null>(null)
  const change = useAccountChange('password', session, async (auth, arg: PasswordChange) => await changePassword(auth, arg.newPassword, arg.endOthers), (answer, arg) => {
    setNewPassword('')
    setConfirmation('')
    setDone(answer.message === '' ? text('account.password.changed') : answer.message)
    onChanged(arg.endOthers)
  })
  const error = mismatch ? text('account.password.mismatch') : change.error
  const invalid = error !== null
  const errorId = `${id}-error`

  function submit (event: FormEvent): void {
    event.preventDefault()
    setDone(null)
    setMismatch(newPassword !== confirmation)
    if (newPassword === confirmation && !change.running) change.run({ newPassword, endOthers })
  }

  return (
    <AccountSection id={id} title={text('account.password.heading')}>
      <ProofInPlace proof={change.proof}>
        <p>{text(hasPassword ? 'account.password.change' : 'account.password.none')}</p>
        <ChangeResult done={done} error={null} />
        <form method='post' className='form' noValidate onSubmit={submit} aria-describedby={invalid ? errorId : undefined}>
          <FormName name='account-password' />
          <div id={errorId} className={`notice${invalid ? ' notice--error' : ''}`} role='alert'>{error}</div>
          <PasswordField label={text('field.newPassword')} revealLabels={{ show: text('field.showNewPassword'), hide: text('field.hideNewPassword') }}
            name='newPassword' autoComplete='new-password' width='full' value={newPassword} onChange={setNewPassword}
            invalid={invalid} hint={text('field.passwordHint', { min: passwordMinLength })} />
          <PasswordField label={text('field.confirmPassword')} revealLabels={{ show: text('field.showConfirmPassword'), hide: text('field.hideConfirmPassword') }}
            name='confirmPassword' autoComplete='new-password' width='full' value={confirmation} onChange={setConfirmation} invalid={mismatch} />
          <label className='checkbox'>
            <input type='checkbox' name='endOtherSessions' checked={endOthers} onChange={(event) => setEndOthers(event.target.checked)} />
            <span>{text('account.password.endOthers')}</span>
          </label>
          {hasPassword && <CurrentPasswordField label={text('account.password.current')} />}
          <Button type='submit' busy={change.running}>{text(hasPassword ? 'account.password.submit' : 'account.password.set')}</Button>
        </form>
      </ProofInPlace>
    </AccountSection>
  )
}
