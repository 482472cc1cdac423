import type { FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { TextField } from '../components/TextField.js'
import { useMessages } from '../languages/messages.js'
import { FORM_NOTICE_ID, type EmailField, type FormState } from '../page/form-view-props.js'
import { ViewLink } from '../page/ViewLink.js'
import { useResetPassword, type ResetRequestPage } from './useResetPassword.js'

export interface ResetPasswordViewProps {
  readonly form: FormState
  readonly email: EmailField
  readonly page: ResetRequestPage
}

/**
 * The reset request. A chunk of its own with its hook and call (SignInPage's
 * passwordResetViewParts), out of the login view's first load: its own
 * request is the only one this view makes, so its busy state is its own.
 */
export default function ResetPasswordView ({ form, email, page }: ResetPasswordViewProps) {
  const { text } = useMessages()
  const submission = useResetPassword(page)
  const busy = form.busy || submission.submitting
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!busy) submission.submit()
  }
  return (
    <>
      <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={FORM_NOTICE_ID}>
        <FormName name='resetPassword' />
        <TextField label={text('field.email')} type='email' name='email' autoComplete='username' width='full' spellCheck={false}
          value={email.value} onChange={email.onChange} invalid={form.invalid} autoFocus={form.invalid} />
        <Button type='submit' busy={submission.submitting} disabled={busy}>{text('resetPassword.submit')}</Button>
      </form>
      {!form.localMode && (
        <p className='links'><ViewLink view='login' onShow={form.onShowView}>{text('links.backToLogin')}</ViewLink></p>
      )}
    </>
  )
}
