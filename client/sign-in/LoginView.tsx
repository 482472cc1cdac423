import { useRef, useState, type ComponentType, type FormEvent, type ReactNode } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import { PasswordField } from '../components/PasswordField.js'
import { TextField } from '../components/TextField.js'
import { useMessages } from '../languages/messages.js'
import { AlternativeMethods, LastUsedMark, SsoOffer } from './AlternativeMethods.js'
import { FORM_NOTICE_ID, type EmailField, type FormState, type SignInMethods, type Submission } from '../page/form-view-props.js'
import type { VerificationLinkButtonProps, VerificationLinkOffer } from '../registration/VerificationLinkButton.js'
import { ViewLink } from '../page/ViewLink.js'
import { LazyPart } from '../components/LazyPart.js'
import { lazyChunk } from '../page/load-chunk.js'

/**
 * The verification link, offered only after a sign-in finds the address unverified, and the support
 * address's copy button: out of the first load
 * (test/build/bundle-budget.integration.test.ts). The server renders the buttons as they are
 * (client/server-render.tsx puts it here before rendering: a context would cost the first load
 * more); a page whose HTML holds it keeps that HTML until its chunk is here (LazyPart's
 * Suspense), as hydration fetches it.
 */
export const loginViewParts: { VerificationLinkButton: ComponentType<VerificationLinkButtonProps>, SupportAddressCopy: ComponentType<{ address: string }> } = {
  VerificationLinkButton: lazyChunk(() => import('../registration/VerificationLinkButton.js')),
  SupportAddressCopy: lazyChunk(() => import('./SupportAddressCopy.js'))
}

export interface LoginViewProps {
  readonly form: FormState
  readonly email: EmailField
  readonly methods: SignInMethods
  readonly submission: Submission<[password: string]>
  readonly verificationLink: VerificationLinkOffer
  readonly supportEmail: string
  readonly passkey: PasskeyChoice
}

/** Passkeys on the login view (usePasskeys): the autofill hint, the button, and the password that stops autofill. */
interface PasskeyChoice {
  readonly offered: boolean
  /** A passkey sign-in runs: the button shows the spinner. */
  readonly signingIn: boolean
  readonly onStart: () => void
  readonly onPasswordTyped: () => void
}

export function LoginView ({ form, email, methods, submission, verificationLink, supportEmail, passkey }: LoginViewProps) {
  const { text } = useMessages()
  const { VerificationLinkButton, SupportAddressCopy } = loginViewParts
  const [password, setPassword] = useState('')
  const emailInput = useRef<HTMLInputElement & HTMLTextAreaElement>(null)
  const { discovery } = methods
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!form.busy) {
      if (discovery) discovery.start()
      else submission.submit(password)
    }
  }
  return (
    <>
      {verificationLink.offered && (
        // Once the link is sent the button goes; focus moves on to the first field rather than to the document.
        <LazyPart>
          <VerificationLinkButton offer={verificationLink} email={email.value} busy={form.busy} onSent={() => emailInput.current?.focus()} />
        </LazyPart>
      )}
      {methods.password && (
        <LocalModeNote localMode={form.localMode}>
        <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={FORM_NOTICE_ID}>
          <FormName name='login' />
          <TextField label={text('field.email')} type='email' name='email' autoComplete={passkey.offered ? 'username webauthn' : 'username'} width='full' spellCheck={false}
            value={email.value} onChange={email.onChange} invalid={form.invalid} inputRef={emailInput} autoFocus={form.invalid && !email.value} />
          {discovery ? <LazyPart><SsoOffer offer={discovery} /></LazyPart> : <>
          <PasswordField label={text('field.password')} revealLabels={{ show: text('field.showPassword'), hide: text('field.hidePassword') }}
            name='password' autoComplete='current-password' width='full'
            value={password} onChange={(value) => {
              setPassword(value)
              if (value !== '') passkey.onPasswordTyped()
            }} invalid={form.invalid} autoFocus={form.invalid && !!email.value} />
          <Button type='submit' busy={submission.submitting} disabled={form.busy}>{text('login.submit')}</Button>
          {/* The password marks the Login button where it stands: the form comes first whatever was used last. */}
          <LastUsedMark methods={methods} method='password' />
          </>}
        </form>
        </LocalModeNote>
      )}
      {methods.password && passkey.offered && !discovery?.required && (
        // A column as the other methods' (styles.css .methods), so that the mark sits below the button as theirs do.
        <div className='methods'>
          <NeedsScript fallback={(content) => content.note('passkey')}>
            <Button variant='secondary' busy={passkey.signingIn} disabled={form.busy} onClick={passkey.onStart}>{text('login.withPasskey')}</Button>
          </NeedsScript>
          <LastUsedMark methods={methods} method='passkey' />
        </div>
      )}
      {!discovery?.required && <AlternativeMethods intent='login' busy={form.busy} methods={methods} email={email.value} />}
      {!form.localMode && (
        <nav className='links' aria-label={text('login.otherActions')}>
          <ViewLink view='register' onShow={form.onShowView}>{text('login.signUpLink')}</ViewLink>
          <ViewLink view='resetPassword' onShow={form.onShowView}>{text('login.forgotPasswordLink')}</ViewLink>
          <span className='support'>
            <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
            {/* Without scripts the address stays, to select and copy by hand: no note needed. */}
            {/* Its box held while the chunk loads, should React render it before (an update during hydration): nothing moves. */}
            <NeedsScript><LazyPart fallback={<span className='copy-button' aria-hidden='true'><svg width='16' height='16' /></span>}><SupportAddressCopy address={supportEmail} /></LazyPart></NeedsScript>
          </span>
        </nav>
      )}
    </>
  )
}

/** Local-network mode logs in from the browser to the local service: the edge cannot take the form's post, so without scripts a note stands in. */
function LocalModeNote ({ localMode, children }: { localMode: boolean, children: ReactNode }) {
  return localMode ? <NeedsScript fallback={(content) => content.note('localNetwork')}>{children}</NeedsScript> : children
}
