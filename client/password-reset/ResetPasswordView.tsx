import type { FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { TextField } from '../components/TextField.js'
import { useMessages } from '../languages/messages.js'
import { FORM_NOTICE_ID, type EmailField, type FormState, type Submission } from '../page/form-view-props.js'
import { ViewLink } from '../page/ViewLink.js'

export interface ResetPasswordViewProps {
  readonly form: FormState
  readonly email: EmailField
  readonly submission: Submission<[]>
}

export function ResetPasswordView ({ form, email, submission }: ResetPasswordViewProps) {
  const { text } = useMessages()
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!form.busy) submission.submit()
  }
  return (
    <>
      <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={FORM_NOTICE_ID}>
        <FormName name='resetPassword' />
        <TextField label={text('field.email')} type='email' name='email' autoComplete='username' width='full' spellCheck={false}
          value={email.value} onChange={email.onChange} invalid={form.invalid} autoFocus={form.invalid} />
        <Button type='submit' busy={submission.submitting} disabled={form.busy}>{text('resetPassword.submit')}</Button>
      </form>
      {!form.localMode && (
        <p className='links'><ViewLink view='login' onShow={form.onShowView}>{text('links.backToLogin')}</ViewLink></p>
      )}
    </>
  )
}
