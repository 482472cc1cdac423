import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { CopyButton } from '../components/CopyButton.js'
import { PasswordField } from '../components/PasswordField.js'
import { TextField } from '../components/TextField.js'
import { AlternativeMethods } from './AlternativeMethods.js'
import type { EmailFieldProps, FormViewProps, SignInMethodsProps } from './form-view-props.js'
import { ViewLink } from './ViewLink.js'

export interface LoginViewProps extends FormViewProps, EmailFieldProps, SignInMethodsProps {
  readonly supportEmail: string
  readonly onSubmit: (password: string) => void
}

export function LoginView (props: LoginViewProps) {
  const [password, setPassword] = useState('')
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!props.busy) props.onSubmit(password)
  }
  return (
    <>
      {props.showPasswordForm && (
        <form className='form' noValidate onSubmit={submit} aria-describedby={props.noticeId}>
          <TextField label='Email' type='email' name='email' autoComplete='username' width='full' spellCheck={false}
            value={props.email} onChange={props.onEmailChange} invalid={props.invalid} />
          <PasswordField label='Password' name='password' autoComplete='current-password' width='full'
            value={password} onChange={setPassword} invalid={props.invalid} />
          <Button type='submit' busy={props.submitting} disabled={props.busy}>Login</Button>
        </form>
      )}
      <AlternativeMethods verb='Login' busy={props.busy} {...props.methods} />
      {!props.localMode && (
        <nav className='links' aria-label='Other actions'>
          <ViewLink view='register' onShow={props.onShowView}>Sign Up</ViewLink>
          <ViewLink view='resetPassword' onShow={props.onShowView}>Forgot Password</ViewLink>
          <span className='support'>
            <a href={`mailto:${props.supportEmail}`}>{props.supportEmail}</a>
            <CopyButton text={props.supportEmail} label='Copy the support address' />
          </span>
        </nav>
      )}
    </>
  )
}
