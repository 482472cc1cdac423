import { useEffect, useRef, useState, type ComponentType } from 'react'
import { Button } from '../components/Button.js'
import { withLaterPageTexts } from '../lib/later-page-texts.js'
import { useMessages } from '../lib/messages.js'

export interface PasskeyOfferProps {
  /** Creates a passkey with the browser's prompt; `failed` is reported, every ending goes on. */
  readonly onCreate: () => Promise<'created' | 'cancelled' | 'failed'>
  /** "Not now": remembered, then on. */
  readonly onNotNow: () => void
  /** Goes on to the redirect target, however the offer ended. */
  readonly onDone: () => void
  /** How long a failure is shown before the page goes on. */
  readonly failurePauseMs: number
}

/**
 * The offer after a password sign-in, in the card in place of the login
 * form: its heading takes the focus, so a screen reader announces it and Tab
 * reaches both buttons. Every ending goes on to the redirect target; a
 * failure is said first, for a moment.
 */
export function PasskeyOffer ({ onCreate, onNotNow, onDone, failurePauseMs }: PasskeyOfferProps) {
  const { text } = useMessages()
  const heading = useRef<HTMLHeadingElement>(null)
  const [creating, setCreating] = useState(false)
  const [failed, setFailed] = useState(false)
  useEffect(() => heading.current?.focus(), [])

  async function create (): Promise<void> {
    setCreating(true)
    if (await onCreate() === 'failed') {
      setFailed(true)
      await new Promise((resolve) => setTimeout(resolve, failurePauseMs))
    }
    onDone()
  }

  return (
    <section className='form' aria-labelledby='passkey-offer-heading'>
      <h1 id='passkey-offer-heading' className='card__title' tabIndex={-1} ref={heading}>{text('passkey.offerHeading')}</h1>
      <p>{text('passkey.offerExplanation')}</p>
      {failed && <p className='notice notice--error' role='alert'>{text('passkey.createFailed')}</p>}
      <Button busy={creating} disabled={failed} onClick={() => { void create() }}>{text('passkey.create')}</Button>
      <Button variant='text' disabled={creating || failed} onClick={() => { onNotNow(); onDone() }}>{text('passkey.notNow')}</Button>
    </section>
  )
}

/** The offer as SignInPage loads it (React.lazy), with its texts (later texts: common/message-catalogue.ts). */
export const withItsTexts = async (): Promise<{ default: ComponentType<PasskeyOfferProps> }> => withLaterPageTexts(PasskeyOffer)
