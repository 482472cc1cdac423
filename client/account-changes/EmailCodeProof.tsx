import { createContext, useContext, useId, useState, type FormEvent } from 'react'
import { normalizeEmailCode } from '../../common/email-codes/email-code-format.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { Button } from '../components/Button.js'
import { Notice, type NoticeContent } from '../components/Notice.js'
import { refusalText, useMessages } from '../languages/messages.js'
import type { FreshProof } from './useFreshProof.js'

/** Whether "Confirm it's you" offers an emailed code (RuntimeConfig.emailCodes): the account view provides it. */
export const EmailCodeProofOffered = createContext(false)

/**
 * "Email me a code" in "Confirm it's you" (docs/account-changes.md): a code
 * to the account's own address (`email-code/send` with the purpose
 * `reauthenticate`), then `reauthenticate` with it, a proof as good as the
 * password's. So an account with neither a password nor a passkey can make
 * its changes. A refused code is the step's error (useFreshProof).
 */
export function EmailCodeProof ({ proof }: { proof: FreshProof }) {
  const messages = useMessages()
  const { text } = messages
  const id = useId()
  const [notice, setNotice] = useState<NoticeContent | null>(null)
  const [code, setCode] = useState('')
  const [sending, setSending] = useState(false)
  if (!useContext(EmailCodeProofOffered)) return null
  const busy = sending || proof.proving !== null

  async function send (): Promise<void> {
    setSending(true)
    const answer = await proof.sendEmailCode()
    setSending(false)
    setNotice(answer.kind === 'success'
      ? { kind: 'success', text: answer.message === '' ? text('emailCode.resent') : answer.message }
      : { kind: 'error', text: answer.kind === 'error' ? refusalText(answer, messages) : text(ERROR_MESSAGE_KEYS.GENERIC) })
  }

  async function submit (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (busy) return
    const normalized = normalizeEmailCode(code)
    if (normalized === null) {
      setNotice({ kind: 'error', text: text('emailCode.codeIncomplete') })
      return
    }
    setNotice(null)
    await proof.withEmailCode(normalized)
  }

  if (notice === null && code === '') {
    return <Button variant='secondary' busy={sending} disabled={busy} onClick={() => { void send() }}>{text('emailCode.send')}</Button>
  }
  return (
    <form className='form' noValidate aria-describedby={`${id}-notice`} onSubmit={(event) => { void submit(event) }}>
      <Notice id={`${id}-notice`} notice={notice} />
      <div className='field field--full'>
        <label htmlFor={`${id}-code`}>{text('emailCode.codeLabel')}</label>
        <div className='field__control'>
          <input id={`${id}-code`} name='code' type='text' autoComplete='one-time-code' autoCapitalize='characters' spellCheck={false} dir='ltr' autoFocus
            value={code} aria-invalid={notice?.kind === 'error' || undefined} onChange={(event) => setCode(event.target.value)} />
        </div>
      </div>
      <Button type='submit' busy={proof.proving !== null} disabled={busy}>{text('emailCode.submit')}</Button>
      <Button variant='text' busy={sending} disabled={busy} onClick={() => { void send() }}>{text('emailCode.resend')}</Button>
    </form>
  )
}
