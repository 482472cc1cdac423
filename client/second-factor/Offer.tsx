import { useEffect, useRef } from 'react'
import { Button } from '../components/Button.js'
import { SECOND_FACTOR_MESSAGES as TEXT } from './messages.js'

/**
 * The offer of a second factor after a password login that needed none, as
 * the passkey offer is shown: its heading takes the focus, "Not now" is
 * remembered for 30 days. The visitor is signed in already either way.
 */
export function Offer ({ onAccept, onNotNow }: { onAccept: () => void, onNotNow: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <section className='form' aria-labelledby='second-factor-offer-heading'>
      <h1 id='second-factor-offer-heading' className='card__title' tabIndex={-1} ref={heading}>{TEXT.OFFER_HEADING}</h1>
      <p>{TEXT.OFFER_EXPLANATION}</p>
      <Button onClick={onAccept}>{TEXT.OFFER_ACCEPT}</Button>
      <Button variant='text' onClick={onNotNow}>{TEXT.NOT_NOW}</Button>
    </section>
  )
}
