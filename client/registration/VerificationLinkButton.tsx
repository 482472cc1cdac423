import { useEffect, useRef, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { useMessages } from '../languages/messages.js'
import { FORM_NOTICE_ID } from '../page/form-view-props.js'

/** The offer of a new verification link, after a login refused because the address is not verified yet. */
export interface VerificationLinkOffer {
  readonly offered: boolean
  /** Its request runs: its button shows the spinner. */
  readonly sending: boolean
  /** Sends the link to the address in the email field; `onSent` runs once it is sent. */
  readonly send: (onSent: () => void) => void
}

export interface VerificationLinkButtonProps {
  readonly offer: VerificationLinkOffer
  /** The email field's value: what the form posts without scripts (with them, the offer sends the page's email). */
  readonly email: string
  /** A request runs or the page is leaving: the button is disabled, as every other. */
  readonly busy: boolean
  /** Where focus goes when the link is sent and the button with it. */
  readonly onSent: () => void
}

/**
 * The button that sends a new verification link, under the refusal that
 * calls for it and described by it. It takes focus when it appears: it is
 * the one thing the visitor can do about that refusal, and a keyboard user
 * would otherwise have to look for it above the form. A disabled button
 * loses focus (Chromium hands it to the document), so after its own request
 * it takes focus back if nothing else has it; once the link is sent, it goes
 * and `onSent` moves focus on.
 */
export default function VerificationLinkButton ({ offer, email, busy, onSent }: VerificationLinkButtonProps) {
  const { text } = useMessages()
  const button = useRef<HTMLButtonElement>(null)
  const focusedOnce = useRef(false)
  // An effect: the button can take focus only once it is enabled, which is when React has
  // committed the end of the request before (the refused login's, then its own).
  useEffect(() => {
    if (busy) return
    const focusLost = document.activeElement === null || document.activeElement === document.body
    if (!focusedOnce.current || focusLost) button.current?.focus()
    focusedOnce.current = true
  }, [busy])

  function send (event: FormEvent): void {
    event.preventDefault()
    offer.send(() => {
      const focused = document.activeElement
      if (focused === null || focused === document.body || focused === button.current) onSent()
    })
  }

  return (
    <form className='verification-link' method='post' onSubmit={send}>
      <FormName name='verificationLink' />
      <input type='hidden' name='email' value={email} />
      <Button ref={button} type='submit' variant='secondary' busy={offer.sending} disabled={busy} aria-describedby={FORM_NOTICE_ID}>
        {text('login.sendVerificationLink')}
      </Button>
    </form>
  )
}
