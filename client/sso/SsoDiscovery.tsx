import { useEffect, useRef, type ComponentType } from 'react'
import { Button } from '../components/Button.js'
import { Notice } from '../components/Notice.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { useMessages } from '../languages/messages.js'
import type { SsoDiscovered, SsoDiscoveryOffer } from '../page/form-view-props.js'
import { discoverSso, type SsoDiscoveryAnswer } from './sso-discovery-calls.js'

/** The pause in typing after which a complete address is asked about. */
export const SSO_DISCOVERY_PAUSE_MS = 400

/** An address complete enough to ask about: something, `@`, and a domain with a dot; its domain, in lower case. */
function domainOf (email: string): string | null {
  const match = /^[^\s@]+@([^\s@]+\.[^\s@.]{2,})$/.exec(email.trim())
  return match === null ? null : match[1]!.toLowerCase()
}

/** What each domain answered, for the page's life (the answer depends on the domain alone); a failure is not kept. */
const answers = new Map<string, SsoDiscoveryAnswer>()

const discovered = (answer: SsoDiscoveryAnswer | undefined): SsoDiscovered | null => answer?.kind === 'sso' ? { required: answer.required } : null

export interface SsoDiscoveryWatchProps {
  readonly email: string
  readonly onAnswer: (discovered: SsoDiscovered | null) => void
}

/**
 * Asks whether the typed address's domain signs in with single sign-on
 * (SSO_DISCOVERY): once the address is complete and typing pauses, and at
 * once when a form is submitted; never for each keystroke, one call at a
 * time, each domain once. Renders nothing; tells the page what it found for
 * the address as it is now. The server renderer renders it as it is
 * (nothing, its effects never run), so that no boundary waits for its chunk.
 */
export function SsoDiscoveryWatch ({ email, onAnswer }: SsoDiscoveryWatchProps) {
  const latest = useRef({ email, onAnswer })
  latest.current = { email, onAnswer }
  const inFlight = useRef(false)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)

  function ask (): void {
    clearTimeout(timer.current)
    const domain = domainOf(latest.current.email)
    if (domain === null || answers.has(domain) || inFlight.current) return
    inFlight.current = true
    void discoverSso(latest.current.email).then((answer) => {
      inFlight.current = false
      if (answer.kind !== 'failed') answers.set(domain, answer)
      const now = domainOf(latest.current.email)
      if (now === domain) latest.current.onAnswer(discovered(answer))
      // The address changed while this was asked: ask about the one there now (a failure is not asked again at once).
      else if (now !== null && !answers.has(now)) timer.current = setTimeout(ask, SSO_DISCOVERY_PAUSE_MS)
    })
  }

  // An outside system kept in step with the typed address: the answer for it, or a question after a pause.
  useEffect(() => {
    const domain = domainOf(email)
    onAnswer(domain === null ? null : discovered(answers.get(domain)))
    if (domain !== null && !answers.has(domain)) timer.current = setTimeout(ask, SSO_DISCOVERY_PAUSE_MS)
    return () => clearTimeout(timer.current)
  }, [email]) // eslint-disable-line react-hooks/exhaustive-deps -- the address alone decides; the callbacks are read through latest

  // A submit asks at once (in the capture phase, before the form's own handler).
  useEffect(() => {
    document.addEventListener('submit', ask, true)
    return () => document.removeEventListener('submit', ask, true)
  }, []) // eslint-disable-line react-hooks/exhaustive-deps -- ask reads what it needs through refs
  return null
}

/**
 * "Continue with single sign-on" in place of the password field, with a
 * line that says why; it starts single sign-on with the typed address, as
 * the modal does. It takes the focus when it appears while the visitor is
 * not in the email field (the password field that had it went away).
 */
function SsoOffer ({ offer }: { offer: SsoDiscoveryOffer }) {
  const { text } = useMessages()
  const button = useRef<HTMLButtonElement>(null)
  const disabled = offer.busy || offer.starting
  // Where the focus was in the password field that went away, it is now nowhere (the body, or the removed field); a
  // button still disabled (the login that asked is under way) takes it once enabled, if the focus is still nowhere.
  useEffect(() => {
    const active = document.activeElement
    if (!disabled && (active === null || active === document.body || !active.isConnected)) button.current?.focus()
  }, [disabled])
  return (
    <>
      <p className='field__hint'>{text('ssoDiscovery.note')}</p>
      <Button ref={button} type='submit' busy={offer.starting} disabled={offer.busy}>{text('ssoDiscovery.continue')}</Button>
      <Notice id='sso-offer-notice' notice={offer.notice} />
    </>
  )
}

/** The parts as SignInPage and the views load them (React.lazy), with their texts (later texts). */
export const watch = async (): Promise<{ default: ComponentType<SsoDiscoveryWatchProps> }> => ({ default: SsoDiscoveryWatch })
export const offer = async (): Promise<{ default: ComponentType<{ offer: SsoDiscoveryOffer }> }> => withLaterPageTexts(SsoOffer)
