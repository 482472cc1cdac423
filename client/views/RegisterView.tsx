import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { PasswordField } from '../components/PasswordField.js'
import { TextField } from '../components/TextField.js'
import type { RegisterPayload } from '../api/accounts.js'
import { AlternativeMethods } from './AlternativeMethods.js'
import type { EmailFieldProps, FormViewProps, SignInMethodsProps } from './form-view-props.js'
import { ViewLink } from './ViewLink.js'

export interface RegisterViewProps extends FormViewProps, EmailFieldProps, SignInMethodsProps {
  readonly onSubmit: (payload: RegisterPayload) => void
}

export function RegisterView (props: RegisterViewProps) {
  const [firstName, setFirstName] = useState('')
  const [lastName, setLastName] = useState('')
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (props.busy) return
    props.onSubmit({ first_name: firstName, last_name: lastName, email: props.email, password, confirm_password: confirmation })
  }
  return (
    <>
      {props.showPasswordForm && (
        <form className='form' noValidate onSubmit={submit} aria-describedby={props.noticeId}>
          <div className='form__row'>
            <TextField label='First Name (optional)' name='first_name' autoComplete='given-name' width='full' value={firstName} onChange={setFirstName} />
            <TextField label='Last Name (optional)' name='last_name' autoComplete='family-name' width='full' value={lastName} onChange={setLastName} />
          </div>
          <TextField label='Company Email' type='email' name='email' autoComplete='username' width='full' spellCheck={false}
            value={props.email} onChange={props.onEmailChange} invalid={props.invalid} />
          <PasswordField label='Password' name='password' autoComplete='new-password' width='full'
            value={password} onChange={setPassword} invalid={props.invalid} hint='At least 8 characters.' />
          <PasswordField label='Confirm Password' name='confirm_password' autoComplete='new-password' width='full'
            value={confirmation} onChange={setConfirmation} invalid={props.invalid} />
          <Button type='submit' busy={props.submitting} disabled={props.busy}>Sign Up</Button>
        </form>
      )}
      <AlternativeMethods verb='Sign up' busy={props.busy} {...props.methods} />
      {!props.localMode && (
        <p className='links'>Already have an account? <ViewLink view='login' onShow={props.onShowView}>Login</ViewLink></p>
      )}
    </>
  )
}
