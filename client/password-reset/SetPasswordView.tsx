import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { PasswordField } from '../components/PasswordField.js'
import { LazyPart } from '../components/LazyPart.js'
import { Spinner } from '../components/Spinner.js'
import { lazyChunk } from '../page/load-chunk.js'
import { useMessages } from '../languages/messages.js'
import { FORM_NOTICE_ID, type FormState, type Submission } from '../page/form-view-props.js'
import { ViewLink } from '../page/ViewLink.js'

// Shown only after a reset that lists something: out of the first load, with its texts (later texts).
const RecentFactors = lazyChunk(async () => (await import('../account-changes/RecentFactors.js')).withItsTexts())

export interface SetPasswordViewProps {
  /** Without localMode: the emailed link's view always offers the way back to login. */
  readonly form: Omit<FormState, 'localMode'>
  readonly submission: Submission<[password: string, confirmation: string]>
  /** The fewest characters of a new password (RuntimeConfig.passwordMinLength), for the hint. */
  readonly passwordMinLength: number
  /** Done, with the answer that lists what was added lately (useSetPassword): the list takes the form's place. */
  readonly review: Readonly<Record<string, unknown>> | null
}

/** The end of a password reset: the view the emailed link opens. */
export function SetPasswordView ({ form, submission, passwordMinLength, review }: SetPasswordViewProps) {
  const { text } = useMessages()
  const backToLogin = <p className='links'><ViewLink view='login' onShow={form.onShowView}>{text('links.backToLogin')}</ViewLink></p>
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  if (review !== null) return <><LazyPart fallback={<Spinner />}><RecentFactors answer={review} /></LazyPart>{backToLogin}</>
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!form.busy) submission.submit(password, confirmation)
  }
  return (
    <>
      <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={FORM_NOTICE_ID}>
        <FormName name='setPassword' />
        <PasswordField label={text('field.newPassword')} revealLabels={{ show: text('field.showNewPassword'), hide: text('field.hideNewPassword') }} name='password' autoComplete='new-password' width='full'
          value={password} onChange={setPassword} invalid={form.invalid} hint={text('field.passwordHint', { min: passwordMinLength })} autoFocus />
        <PasswordField label={text('field.confirmPassword')} revealLabels={{ show: text('field.showConfirmPassword'), hide: text('field.hideConfirmPassword') }} name='confirm_password' autoComplete='new-password' width='full'
          value={confirmation} onChange={setConfirmation} invalid={form.invalid} />
        <Button type='submit' busy={submission.submitting} disabled={form.busy}>{text('setPassword.submit')}</Button>
      </form>
      {backToLogin}
    </>
  )
}
