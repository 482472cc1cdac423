import type { FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { TextField } from '../components/TextField.js'
import type { EmailFieldProps, FormViewProps } from './form-view-props.js'
import { ViewLink } from './ViewLink.js'

export interface ResetPasswordViewProps extends FormViewProps, EmailFieldProps {
  readonly localMode: boolean
  readonly onSubmit: () => void
}

export function ResetPasswordView (props: ResetPasswordViewProps) {
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!props.busy) props.onSubmit()
  }
  return (
    <>
      <form className='form' noValidate onSubmit={submit} aria-describedby={props.noticeId}>
        <TextField label='Email' type='email' name='email' autoComplete='username' width='full' spellCheck={false}
          value={props.email} onChange={props.onEmailChange} invalid={props.invalid} />
        <Button type='submit' busy={props.submitting} disabled={props.busy}>Send a Password Reset Email</Button>
      </form>
      {!props.localMode && (
        <p className='links'><ViewLink view='login' onShow={props.onShowView}>Back to Login</ViewLink></p>
      )}
    </>
  )
}
