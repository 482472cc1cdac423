import { useEffect, useRef, useState, type ComponentType } from 'react'
import type { ChangeRefusal } from '../account-changes/fresh-proof-answers.js'
import { Button } from '../components/Button.js'
import { ConfirmStep } from '../account-changes/ConfirmStep.js'
import { useFreshProof } from '../account-changes/useFreshProof.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { useMessages } from '../languages/messages.js'
import { EndOtherSessions } from '../sessions/EndOtherSessions.js'

export interface PasskeyOfferProps {
  /** The stored login's auth token, which proves the account again where the service asks for it. */
  readonly auth: string
  /**
   * Creates a passkey with the browser's prompt; `failed` is reported, every
   * ending goes on; a refusal that a fresh proof answers shows "Confirm it's you" first.
   */
  readonly onCreate: () => Promise<'created' | 'cancelled' | 'failed' | ChangeRefusal>
  /** "Not now": remembered, then on. */
  readonly onNotNow: () => void
  /** Goes on to the redirect target, however the offer ended (after a passkey is created, by the visitor's Continue). */
  readonly onDone: () => void
  /** Back to the login view; `refusal`: the text of a session that ended, shown there. */
  readonly onSignInAgain: (refusal: string | null) => void
  /** How long a failure is shown before the page goes on. */
  readonly failurePauseMs: number
}

/**
 * The offer after a password sign-in, in the card in place of the login
 * form: its heading takes the focus, so a screen reader announces it and Tab
 * reaches both buttons. Every ending goes on to the redirect target; a
 * failure is said first, for a moment. Where the service wants the account
 * proven again first (docs/account-changes.md), "Confirm it's you" takes
 * its place, and a good proof opens the browser's prompt by itself. A
 * passkey created is a new way in: the card then says so and offers to sign
 * out of every other session before the visitor goes on.
 */
export function PasskeyOffer ({ auth, onCreate, onNotNow, onDone, onSignInAgain, failurePauseMs }: PasskeyOfferProps) {
  const { text } = useMessages()
  const heading = useRef<HTMLHeadingElement>(null)
  const [creating, setCreating] = useState(false)
  const [failed, setFailed] = useState(false)
  const [created, setCreated] = useState(false)
  const proof = useFreshProof(auth, { retry: () => { void create() }, signInAgain: onSignInAgain })
  const offerShown = proof.ways === null
  // The offer's heading, and then the created passkey's, takes the focus.
  useEffect(() => { if (offerShown) heading.current?.focus() }, [offerShown, created])

  async function create (): Promise<void> {
    setCreating(true)
    const outcome = await onCreate()
    if (typeof outcome === 'object') {
      setCreating(false)
      proof.refused(outcome)
      return
    }
    if (outcome === 'created') {
      setCreated(true)
      return
    }
    if (outcome === 'failed') {
      setFailed(true)
      await new Promise((resolve) => setTimeout(resolve, failurePauseMs))
    }
    onDone()
  }

  if (!offerShown) return <ConfirmStep proof={proof} />
  if (created) {
    return (
      <section className='form' aria-labelledby='passkey-created-heading'>
        <h1 id='passkey-created-heading' className='card__title' tabIndex={-1} ref={heading}>{text('passkey.offerCreated')}</h1>
        <EndOtherSessions auth={auth} />
        <Button onClick={onDone}>{text('passkey.offerContinue')}</Button>
      </section>
    )
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

/** The offer as SignInPage loads it (React.lazy), with its texts (later texts: common/languages/message-catalogue.ts). */
export const withItsTexts = async (): Promise<{ default: ComponentType<PasskeyOfferProps> }> => withLaterPageTexts(PasskeyOffer)
