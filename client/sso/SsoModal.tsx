import { useState, type ComponentType, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { Modal } from '../components/Modal.js'
import { Notice, type NoticeContent } from '../components/Notice.js'
import { TextField } from '../components/TextField.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { useMessages } from '../languages/messages.js'
import type { Submission } from '../page/form-view-props.js'

/** The SSO start as the modal shows it: its request, and its own notice, apart from the form's. */
export interface SsoStart extends Submission<[email: string]> {
  readonly notice: NoticeContent | null
  readonly cancel: () => void
}

export interface SsoModalProps {
  /** Prefills the Email field: the email already entered on the view. */
  readonly initialEmail: string
  /** Which view opened it: its submit button says so. */
  readonly intent: 'login' | 'register'
  readonly busy: boolean
  readonly sso: SsoStart
}

/** 'SSO Login': asks for the email whose domain picks the identity provider. */
export function SsoModal ({ initialEmail, intent, busy, sso }: SsoModalProps) {
  const { text } = useMessages()
  const [email, setEmail] = useState(initialEmail)
  const noticeId = 'sso-notice'
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!busy) sso.submit(email)
  }
  return (
    <Modal title={text('sso.title')} onClose={sso.cancel}>
      <Notice id={noticeId} notice={sso.submitting ? null : sso.notice} />
      <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={noticeId}>
        <FormName name='sso' />
        <TextField label={text('field.email')} type='email' name='email' autoComplete='username' width='full' spellCheck={false}
          value={email} onChange={setEmail} invalid={sso.notice?.kind === 'error'} />
        <div className='modal__actions'>
          <Button variant='secondary' disabled={busy} onClick={sso.cancel}>{text('sso.cancel')}</Button>
          <Button type='submit' busy={sso.submitting} disabled={busy}>{text(intent === 'register' ? 'sso.submitSignUp' : 'sso.submitLogin')}</Button>
        </div>
      </form>
    </Modal>
  )
}

/** The modal as SignInPage loads it (React.lazy), with its texts (later texts: common/languages/message-catalogue.ts). */
export const withItsTexts = async (): Promise<{ default: ComponentType<SsoModalProps> }> => withLaterPageTexts(SsoModal)
