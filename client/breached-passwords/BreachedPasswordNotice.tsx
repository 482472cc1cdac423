import { useEffect, useRef, useState, type ComponentType } from 'react'
import { resetPasswordRequest } from '../password-reset/password-reset-calls.js'
import { Button } from '../components/Button.js'
import { laterPageTexts } from '../languages/later-page-texts.js'
import { MessagesContext, refusalText, useMessages, withLaterTexts } from '../languages/messages.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { STEP_NOTICE_ID } from '../page/form-view-props.js'

export interface BreachedPasswordNoticeProps {
  /** The address the login was made with: where the link to change the password goes. */
  readonly email: string
  /** On to the redirect target, as the login would have gone. */
  readonly onContinue: () => void
}

/**
 * The step after a login whose password was found in a breach
 * (docs/breached-passwords.md), in the card in place of the form, as the
 * offers are shown: its heading takes the focus. The visitor is signed in
 * already; the step offers the reset link (the same call as "Forgot
 * password"), says where it went, and Continue goes on as the login would
 * have. Nothing here keeps the visitor from going on.
 */
export function BreachedPasswordNotice ({ email, onContinue }: BreachedPasswordNoticeProps) {
  const messages = useMessages()
  const { text } = messages
  const heading = useRef<HTMLHeadingElement>(null)
  const [sending, setSending] = useState(false)
  const [said, setSaid] = useState<{ readonly kind: 'sent' | 'error', readonly text: string } | null>(null)
  useEffect(() => heading.current?.focus(), [])

  async function sendLink (): Promise<void> {
    setSending(true)
    setSaid(null)
    const answer = await resetPasswordRequest({ email })
    setSending(false)
    setSaid(answer.kind === 'success'
      ? { kind: 'sent', text: text('breachedPassword.linkSent', { email }) }
      : { kind: 'error', text: answer.kind === 'error' ? refusalText(answer, messages) : text(ERROR_MESSAGE_KEYS.GENERIC) })
  }

  return (
    <section className='form' aria-labelledby='breached-password-heading'>
      <h1 id='breached-password-heading' className='card__title' tabIndex={-1} ref={heading}>{text('breachedPassword.heading')}</h1>
      <p>{text('breachedPassword.explanation')}</p>
      <div id={STEP_NOTICE_ID} role='status'>{said?.kind === 'sent' && <p className='notice notice--success'>{said.text}</p>}</div>
      {said?.kind === 'error' && <p className='notice notice--error' role='alert'>{said.text}</p>}
      {said?.kind !== 'sent' && (
        <Button variant='secondary' busy={sending} onClick={() => { void sendLink() }}>{text('breachedPassword.sendLink')}</Button>
      )}
      <Button disabled={sending} onClick={onContinue}>{text('breachedPassword.continue')}</Button>
    </section>
  )
}

/**
 * The notice as SignInPage loads it (React.lazy): with its texts, fetched
 * beside the chunk when the edge left them out of the page. Texts that do not
 * load leave the notice out: the sign-in goes on, as it does when an offer
 * cannot be shown.
 */
export async function withItsTexts (): Promise<{ default: ComponentType<BreachedPasswordNoticeProps> }> {
  const later = await laterPageTexts().catch(() => undefined)
  return {
    default: function NoticeWithItsTexts (props: BreachedPasswordNoticeProps) {
      const messages = useMessages()
      // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at mount: the texts did not load, so the sign-in goes on
      useEffect(() => { if (later === undefined) props.onContinue() }, [])
      if (later === undefined) return null
      return (
        <MessagesContext.Provider value={later === null ? messages : withLaterTexts(messages, later)}>
          <BreachedPasswordNotice {...props} />
        </MessagesContext.Provider>
      )
    }
  }
}
