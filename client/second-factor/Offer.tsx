import { useEffect, useRef } from 'react'
import { Button } from '../components/Button.js'
import { useMessages } from '../languages/messages.js'

/**
 * The offer of a second factor after a password login that needed none, as
 * the passkey offer is shown: its heading takes the focus, "Not now" is
 * remembered for 30 days. The visitor is signed in already either way.
 */
export function Offer ({ onAccept, onNotNow }: { onAccept: () => void, onNotNow: () => void }) {
  const { text } = useMessages()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <section className='form' aria-labelledby='second-factor-offer-heading'>
      <h1 id='second-factor-offer-heading' className='card__title' tabIndex={-1} ref={heading}>{text('secondFactor.offerHeading')}</h1>
      <p>{text('secondFactor.offerExplanation')}</p>
      <Button onClick={onAccept}>{text('secondFactor.offerAccept')}</Button>
      <Button variant='text' onClick={onNotNow}>{text('secondFactor.notNow')}</Button>
    </section>
  )
}
