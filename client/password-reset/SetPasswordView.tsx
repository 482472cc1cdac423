import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { PasswordField } from '../components/PasswordField.js'
import { LazyPart } from '../components/LazyPart.js'
import { Spinner } from '../components/Spinner.js'
import { lazyChunk } from '../page/load-chunk.js'
import { useMessages } from '../languages/messages.js'
import { FORM_NOTICE_ID, type FormState } from '../page/form-view-props.js'
import { ViewLink } from '../page/ViewLink.js'
import { useSetPassword, type SetPasswordPage } from './useSetPassword.js'

// Shown only after a reset that lists something: out of the first load, with its texts (later texts).
const RecentFactors = lazyChunk(async () => (await import('../account-changes/RecentFactors.js')).withItsTexts())

export interface SetPasswordViewProps {
  /** Without localMode: the emailed link's view always offers the way back to login. */
  readonly form: Omit<FormState, 'localMode'>
  readonly page: SetPasswordPage
  /** The fewest characters of a new password (RuntimeConfig.passwordMinLength), for the hint. */
  readonly passwordMinLength: number
}

/**
 * The end of a password reset: the view the emailed link opens. A chunk of
 * its own with its hook and call (SignInPage's passwordResetViewParts), out of
 * the login view's first load. Done, with an answer that lists what was added
 * lately (useSetPassword's `review`), the list takes the form's place.
 */
export default function SetPasswordView ({ form, page, passwordMinLength }: SetPasswordViewProps) {
  const { text } = useMessages()
  const submission = useSetPassword(page)
  const { review } = submission
  const busy = form.busy || submission.submitting
  const backToLogin = <p className='links'><ViewLink view='login' onShow={form.onShowView}>{text('links.backToLogin')}</ViewLink></p>
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  if (review !== null) return <><LazyPart fallback={<Spinner />}><RecentFactors answer={review} /></LazyPart>{backToLogin}</>
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!busy) submission.submit(password, confirmation)
  }
  return (
    <>
      <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={FORM_NOTICE_ID}>
        <FormName name='setPassword' />
        <PasswordField label={text('field.newPassword')} revealLabels={{ show: text('field.showNewPassword'), hide: text('field.hideNewPassword') }} name='password' autoComplete='new-password' width='full'
          value={password} onChange={setPassword} invalid={form.invalid} hint={text('field.passwordHint', { min: passwordMinLength })} autoFocus />
        <PasswordField label={text('field.confirmPassword')} revealLabels={{ show: text('field.showConfirmPassword'), hide: text('field.hideConfirmPassword') }} name='confirm_password' autoComplete='new-password' width='full'
          value={confirmation} onChange={setConfirmation} invalid={form.invalid} />
        <Button type='submit' busy={submission.submitting} disabled={busy}>{text('setPassword.submit')}</Button>
      </form>
      {backToLogin}
    </>
  )
}
