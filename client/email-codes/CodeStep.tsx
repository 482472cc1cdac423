import { useId, useState, type FormEvent } from 'react'
import { normalizeEmailCode } from '../../common/email-codes/email-code-format.js'
import type { PasswordLoginAnswer } from '../../common/http/accounts-answers.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { Notice, type NoticeContent } from '../components/Notice.js'
import { useValueTypedBeforeHydration } from '../components/useValueTypedBeforeHydration.js'
import { refusalText, useMessages } from '../languages/messages.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'
import { loginWithEmailCode, sendEmailCode } from './email-code-calls.js'

export interface EmailCodeStepProps {
  readonly email: string
  /** What the send said (or a form post's answer: PageFormState), shown above the field at once. */
  readonly notice: NoticeContent | null
  readonly context: LoginContextFields
  /** A code is on its way to the service: the sign-in's method is noted (useSignInEnding). */
  readonly onSubmitting: () => void
  /** The login's answer: true where it signed in or went on (tokens, a second factor); false leaves the refusal here. */
  readonly onAnswer: (answer: PasswordLoginAnswer) => boolean
  readonly onOtherAddress: () => void
}

/**
 * The code from the email, in the card in place of the view: the field takes
 * the focus (the visitor came to type), accepts the code as typed or pasted
 * (`ABCD-EFGH`, spaces, any case: normalizeEmailCode), and says so when it is
 * incomplete before anything is posted. Real forms (`email-code`, and
 * `email-code-request` for a new code), so that the server's code step works
 * without scripts (docs/email-codes.md).
 */
export function CodeStep ({ email, notice: initialNotice, context, onSubmitting, onAnswer, onOtherAddress }: EmailCodeStepProps) {
  const messages = useMessages()
  const { text } = messages
  const id = useId()
  const fieldId = `${id}-code`
  const noticeId = `${id}-notice`
  const [code, setCode] = useState('')
  const [busy, setBusy] = useState(false)
  const [notice, setNotice] = useState<NoticeContent | null>(initialNotice)
  useValueTypedBeforeHydration(fieldId, code, setCode)
  const fail = (message: string): void => setNotice({ kind: 'error', text: message })
  const invalid = notice?.kind === 'error'

  async function submit (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (busy) return
    // The button stays enabled before the code is complete: without scripts it must post.
    const normalized = normalizeEmailCode(code)
    if (normalized === null) {
      fail(text('emailCode.codeIncomplete'))
      return
    }
    setBusy(true)
    setNotice(null)
    onSubmitting()
    const answer = await loginWithEmailCode({ email, code: normalized, ...context })
    // Signed in: busy until the page has left (or the next step has the card).
    if (onAnswer(answer)) return
    setBusy(false)
    fail(answer.kind === 'error' ? refusalText(answer, messages) : answer.kind === 'email-not-verified' ? answer.message : text(ERROR_MESSAGE_KEYS.GENERIC))
  }

  async function resend (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (busy) return
    setBusy(true)
    setNotice(null)
    const answer = await sendEmailCode(email)
    setBusy(false)
    if (answer.kind === 'success') setNotice({ kind: 'success', text: text('emailCode.resent') })
    else fail(answer.kind === 'error' ? refusalText(answer, messages) : text(ERROR_MESSAGE_KEYS.GENERIC))
  }

  return (
    <section aria-labelledby={`${id}-heading`}>
      <h1 id={`${id}-heading`} className='card__title'>{text('emailCode.codeHeading')}</h1>
      <Notice id={noticeId} notice={notice} />
      {/* One column for both forms (styles.css .form), spaced as the request step's: the code's, then the two ways on, centred as its "Use another way". */}
      <div className='form'>
        <form className='form' method='post' noValidate aria-describedby={noticeId} onSubmit={(event) => { void submit(event) }}>
          <FormName name='email-code' />
          <input type='hidden' name='email' value={email} />
          <p>{text('emailCode.codeExplanation', { email })}</p>
          <div className='field field--full'>
            <label htmlFor={fieldId}>{text('emailCode.codeLabel')}</label>
            <div className='field__control'>
              <input id={fieldId} name='code' type='text' autoComplete='one-time-code' autoCapitalize='characters' spellCheck={false} dir='ltr' autoFocus
                value={code} aria-invalid={invalid || undefined} aria-describedby={invalid ? noticeId : undefined} onChange={(event) => setCode(event.target.value)} />
            </div>
          </div>
          <Button type='submit' busy={busy}>{text('emailCode.submit')}</Button>
        </form>
        <form className='form' method='post' noValidate onSubmit={(event) => { void resend(event) }}>
          <FormName name='email-code-request' />
          <input type='hidden' name='email' value={email} />
          <Button type='submit' variant='text' disabled={busy}>{text('emailCode.resend')}</Button>
          {/* Without scripts, the login view is where another address is typed (its "Email me a sign-in code" form). */}
          <NeedsScript fallback={(content) => content.loginLink(text('emailCode.otherAddress'))}>
            <Button variant='text' disabled={busy} onClick={onOtherAddress}>{text('emailCode.otherAddress')}</Button>
          </NeedsScript>
        </form>
      </div>
    </section>
  )
}
