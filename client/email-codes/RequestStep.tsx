import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import type { NoticeContent } from '../components/Notice.js'
import { TextField } from '../components/TextField.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'
import { refusalText, useMessages } from '../languages/messages.js'
import { sendEmailCode } from './email-code-calls.js'

/**
 * The address a code goes to, prefilled with the view's. The domain check
 * first, where the page asks for one; then `email-code/send`, whose success
 * (the same for any address) leads to the code step with its text.
 */
export function RequestStep ({ signUp, email, onEmail, gate, onSent, onBack }: {
  /** From the register view (or the passkey sign-up): the heading says so. */
  signUp: boolean
  email: string
  onEmail: (email: string) => void
  gate: DomainGate
  onSent: (email: string, notice: NoticeContent) => void
  onBack: () => void
}) {
  const messages = useMessages()
  const { text } = messages
  const id = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => heading.current?.focus(), [])

  async function submit (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (busy) return
    setBusy(true)
    setError(null)
    const refusal = await gate(email)
    const answer = refusal === null ? await sendEmailCode(email) : { kind: 'error', message: refusal } as const
    setBusy(false)
    if (answer.kind === 'success') onSent(email, { kind: 'success', text: answer.message })
    else setError(answer.kind === 'error' ? refusalText(answer, messages) : text(ERROR_MESSAGE_KEYS.GENERIC))
  }

  return (
    <section aria-labelledby={`${id}-heading`}>
      <h1 id={`${id}-heading`} className='card__title' tabIndex={-1} ref={heading}>
        {text(signUp ? 'emailCode.signUpHeading' : 'emailCode.requestHeading')}
      </h1>
      <div id={`${id}-notice`} className={`notice${error === null ? '' : ' notice--error'}`} role='alert'>{error}</div>
      <form className='form' method='post' noValidate aria-describedby={`${id}-notice`} onSubmit={(event) => { void submit(event) }}>
        <FormName name='email-code-request' />
        <p>{text('emailCode.requestExplanation')}</p>
        <TextField label={text('field.email')} type='email' name='email' autoComplete='username' width='full' spellCheck={false}
          value={email} onChange={onEmail} invalid={error !== null} />
        <Button type='submit' busy={busy}>{text('emailCode.send')}</Button>
        <Button variant='text' disabled={busy} onClick={onBack}>{text('emailCode.otherMethod')}</Button>
      </form>
    </section>
  )
}
