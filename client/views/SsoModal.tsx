import { useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { Modal } from '../components/Modal.js'
import { Notice, type NoticeContent } from '../components/Notice.js'
import { TextField } from '../components/TextField.js'

export interface SsoModalProps {
  /** Prefills the Email field: the email already entered on the view. */
  readonly initialEmail: string
  readonly verb: 'Login' | 'Sign up'
  readonly busy: boolean
  readonly submitting: boolean
  readonly notice: NoticeContent | null
  readonly onSubmit: (email: string) => void
  readonly onCancel: () => void
}

/** 'SSO Login': asks for the email whose domain picks the identity provider. */
export function SsoModal (props: SsoModalProps) {
  const [email, setEmail] = useState(props.initialEmail)
  const noticeId = 'sso-notice'
  function submit (event: FormEvent): void {
    event.preventDefault()
    if (!props.busy) props.onSubmit(email)
  }
  return (
    <Modal title='SSO Login' onClose={props.onCancel}>
      <Notice id={noticeId} notice={props.submitting ? null : props.notice} />
      <form className='form' noValidate onSubmit={submit} aria-describedby={noticeId}>
        <TextField label='Email' type='email' name='sso_email' autoComplete='username' width='full' spellCheck={false}
          value={email} onChange={setEmail} invalid={props.notice?.kind === 'error'} />
        <div className='modal__actions'>
          <Button variant='secondary' disabled={props.busy} onClick={props.onCancel}>Cancel</Button>
          <Button type='submit' busy={props.submitting} disabled={props.busy}>{props.verb}</Button>
        </div>
      </form>
    </Modal>
  )
}
