import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { Modal } from '../components/Modal.js'
import { Notice, type NoticeContent } from '../components/Notice.js'
import { TextField } from '../components/TextField.js'
import type { Submission } from './form-view-props.js'

/** The SSO start as the modal shows it: its request, and its own notice, apart from the form's. */
export interface SsoStart extends Submission<[email: string]> {
  readonly notice: NoticeContent | null
  readonly cancel: () => void
}

export interface SsoModalProps {
  /** Prefills the Email field: the email already entered on the view. */
  readonly initialEmail: string
  readonly verb: 'Login' | 'Sign up'
  readonly busy: boolean
  readonly sso: SsoStart
}

/** 'SSO Login': asks for the email whose domain picks the identity provider. */
export function SsoModal ({ initialEmail, verb, busy, sso }: SsoModalProps) {
  const [email, setEmail] = useState(initialEmail)
  const noticeId = 'sso-notice'
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!busy) sso.submit(email)
  }
  return (
    <Modal title='SSO Login' onClose={sso.cancel}>
      <Notice id={noticeId} notice={sso.submitting ? null : sso.notice} />
      <form className='form' method='post' noValidate onSubmit={submit} aria-describedby={noticeId}>
        <FormName name='sso' />
        <TextField label='Email' type='email' name='email' autoComplete='username' width='full' spellCheck={false}
          value={email} onChange={setEmail} invalid={sso.notice?.kind === 'error'} />
        <div className='modal__actions'>
          <Button variant='secondary' disabled={busy} onClick={sso.cancel}>Cancel</Button>
          <Button type='submit' busy={sso.submitting} disabled={busy}>{verb}</Button>
        </div>
      </form>
    </Modal>
  )
}
