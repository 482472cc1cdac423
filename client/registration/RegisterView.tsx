import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { PasswordField } from '../components/PasswordField.js'
import { TextField } from '../components/TextField.js'
import { useRegister, type RegisterPage } from './useRegister.js'
import { useMessages } from '../languages/messages.js'
import { AlternativeMethods, SsoOffer } from '../sign-in/AlternativeMethods.js'
import { FORM_NOTICE_ID, type EmailField, type FormState, type SignInMethods } from '../page/form-view-props.js'
import { ViewLink } from '../page/ViewLink.js'
import { LazyPart } from '../components/LazyPart.js'

export interface RegisterViewProps {
  readonly form: FormState
  readonly email: EmailField
  readonly methods: SignInMethods
  readonly page: RegisterPage
  /** The fewest characters of a new password (RuntimeConfig.passwordMinLength), for the hint. */
  readonly passwordMinLength: number
}

/**
 * Registration. A chunk of its own with its hook and call (SignInPage's
 * viewParts), out of the login view's first load, which only links here;
 * its own request's busy state joins the page's.
 */
export default function RegisterView ({ form: pageForm, email, methods, page, passwordMinLength }: RegisterViewProps) {
  const { text } = useMessages()
  const submission = useRegister(page)
  const form = { ...pageForm, busy: pageForm.busy || submission.submitting }
  const [firstName, setFirstName] = useState('')
  const [lastName, setLastName] = useState('')
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const { discovery } = methods
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (form.busy) return
    if (discovery) discovery.start()
    else submission.submit({ first_name: firstName, last_name: lastName, email: email.value, password, confirm_password: confirmation })
  }
  return (
    <>
      {methods.password && (
        <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={FORM_NOTICE_ID}>
          <FormName name='register' />
          <div className='form__row'>
            <TextField label={text('field.firstName')} name='first_name' autoComplete='given-name' width='full' value={firstName} onChange={setFirstName} />
            <TextField label={text('field.lastName')} name='last_name' autoComplete='family-name' width='full' value={lastName} onChange={setLastName} />
          </div>
          <TextField label={text('field.companyEmail')} type='email' name='email' autoComplete='username' width='full' spellCheck={false}
            value={email.value} onChange={email.onChange} invalid={form.invalid} autoFocus={form.invalid && !email.value} />
          {discovery ? <LazyPart><SsoOffer offer={discovery} /></LazyPart> : <>
          <PasswordField label={text('field.password')} revealLabels={{ show: text('field.showPassword'), hide: text('field.hidePassword') }} name='password' autoComplete='new-password' width='full'
            value={password} onChange={setPassword} invalid={form.invalid} autoFocus={form.invalid && !!email.value} hint={text('field.passwordHint', { min: passwordMinLength })} />
          <PasswordField label={text('field.confirmPassword')} revealLabels={{ show: text('field.showConfirmPassword'), hide: text('field.hideConfirmPassword') }} name='confirm_password' autoComplete='new-password' width='full'
            value={confirmation} onChange={setConfirmation} invalid={form.invalid} />
          <Button type='submit' busy={submission.submitting} disabled={form.busy}>{text('register.submit')}</Button>
          </>}
        </form>
      )}
      {!discovery?.required && <AlternativeMethods intent='register' busy={form.busy} methods={methods} email={email.value} />}
      {!form.localMode && (
        <p className='links'>{text('register.haveAccount')} <ViewLink view='login' onShow={form.onShowView}>{text('register.loginLink')}</ViewLink></p>
      )}
    </>
  )
}
