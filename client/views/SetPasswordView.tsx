import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { PasswordField } from '../components/PasswordField.js'
import type { FormViewProps } from './form-view-props.js'
import { ViewLink } from './ViewLink.js'

export interface SetPasswordViewProps extends FormViewProps {
  readonly onSubmit: (password: string, confirmation: string) => void
}

/** The end of a password reset: the view the emailed link opens. */
export function SetPasswordView (props: SetPasswordViewProps) {
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!props.busy) props.onSubmit(password, confirmation)
  }
  return (
    <>
      <form className='form' noValidate onSubmit={submit} aria-describedby={props.noticeId}>
        <PasswordField label='New Password' name='password' autoComplete='new-password' width='full'
          value={password} onChange={setPassword} invalid={props.invalid} hint='At least 8 characters.' autoFocus />
        <PasswordField label='Confirm Password' name='confirm_password' autoComplete='new-password' width='full'
          value={confirmation} onChange={setConfirmation} invalid={props.invalid} />
        <Button type='submit' busy={props.submitting} disabled={props.busy}>Set New Password</Button>
      </form>
      <p className='links'><ViewLink view='login' onShow={props.onShowView}>Back to Login</ViewLink></p>
    </>
  )
}
