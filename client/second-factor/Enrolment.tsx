import { useEffect, useRef, useState, type FormEvent } from 'react'
import { confirmEnrolment, startEnrolment, type EnrolmentAuthority } from './second-factor-calls.js'
import type { EnrolmentConfirmAnswer } from '../../common/second-factor/second-factor-answers.js'
import { Button } from '../components/Button.js'
import { CopyButton } from '../components/CopyButton.js'
import { ConfirmStep } from '../account-changes/ConfirmStep.js'
import { useFreshProof } from '../account-changes/useFreshProof.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { refusalText, useMessages } from '../languages/messages.js'
import { isAuthenticatorCode } from '../../common/second-factor/second-factor-codes.js'
import { CodeField } from './code-field.js'
import { QrCode } from './QrCode.js'
import { RecoveryCodes } from './RecoveryCodes.js'
import { RememberBrowser } from './RememberBrowser.js'

type Confirmed = Extract<EnrolmentConfirmAnswer, { kind: 'confirmed' }>

export interface EnrolmentProps {
  /** The login's challenge (an enrolment the login requires) or the signed-in account's token (the offer). */
  readonly authority: EnrolmentAuthority
  /** Whether to offer "Don't ask again on this browser for 30 days" (during a login only). */
  readonly rememberOffered: boolean
  readonly productName: string
  /** After the recovery codes: the login's tokens to store (null after the offer, whose are stored already). */
  readonly onDone: (tokens: Confirmed['tokens']) => void
  /** Leaves the enrolment: back to the login form, or on after the offer. */
  readonly onCancel: () => void
  readonly cancelLabel: string
  /** Back to the login view, from "Confirm it's you"; `refusal`: the text of a session that ended, shown there. */
  readonly onSignInAgain: (refusal: string | null) => void
}

/** The key for typing into an app, in groups of four as authenticator apps show it. */
const groupedKey = (secret: string): string => secret.replace(/=+$/, '').match(/.{1,4}/g)?.join(' ') ?? ''

/**
 * Enrolment of an authenticator app: the key as a QR code and as text, the
 * first code to confirm it, then the recovery codes, shown once. Loaded as a
 * chunk of its own (with the QR encoder), only when an enrolment starts.
 * A signed-in enrolment that the service refuses until the account is proven
 * again (docs/account-changes.md) shows "Confirm it's you" first, and starts
 * again by itself after a good proof.
 */
export function Enrolment ({ authority, rememberOffered, productName, onDone, onCancel, cancelLabel, onSignInAgain }: EnrolmentProps) {
  const messages = useMessages()
  const { text } = messages
  const [secret, setSecret] = useState<{ secret: string, uri: string } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [code, setCode] = useState('')
  const [remember, setRemember] = useState(false)
  const [busy, setBusy] = useState(false)
  const [confirmed, setConfirmed] = useState<Confirmed | null>(null)
  // One start per enrolment, also under StrictMode's second effect run: each start makes a new secret.
  const started = useRef(false)
  const heading = useRef<HTMLHeadingElement>(null)
  const proof = useFreshProof(authority.kind === 'bearer' ? authority.auth : null, { retry: start, signInAgain: onSignInAgain })
  const enrolmentShown = proof.ways === null
  // The step's heading takes the focus when it shows, and again after "Confirm it's you".
  useEffect(() => { if (enrolmentShown) heading.current?.focus() }, [enrolmentShown])

  function start (): void {
    void startEnrolment(authority).then((answer) => {
      if (answer.kind === 'secret') setSecret({ secret: answer.secret, uri: answer.otpauthUri })
      else if (answer.kind === 'proof-needed' || answer.kind === 'signed-out') proof.refused(answer)
      else setError(answer.kind === 'error' ? refusalText(answer, messages) : text(ERROR_MESSAGE_KEYS.GENERIC))
    })
  }

  useEffect(() => {
    if (started.current) return
    started.current = true
    start()
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at mount: a retry calls start() itself
  }, [])

  async function confirm (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (!isAuthenticatorCode(code) || busy) return
    setBusy(true)
    setError(null)
    const answer = await confirmEnrolment(authority, code, rememberOffered && remember)
    setBusy(false)
    if (answer.kind === 'confirmed') setConfirmed(answer)
    else setError(answer.kind === 'error' ? refusalText(answer, messages) : text(ERROR_MESSAGE_KEYS.GENERIC))
  }

  if (confirmed !== null) {
    return (
      <RecoveryCodes codes={confirmed.recoveryCodes} productName={productName} onContinue={() => onDone(confirmed.tokens)}
        endOthersWith={authority.kind === 'bearer' ? authority.auth : null} />
    )
  }
  if (!enrolmentShown) return <ConfirmStep proof={proof} />
  return (
    <section aria-labelledby='enrolment-heading'>
      <h1 id='enrolment-heading' className='card__title' tabIndex={-1} ref={heading}>{text('secondFactor.enrolHeading')}</h1>
      <form className='form' noValidate onSubmit={(event) => { void confirm(event) }}>
        <p>{authority.kind === 'challenge' ? text('secondFactor.enrolRequired') : text('secondFactor.enrolExplanation')}</p>
        <div className={`notice${error === null ? '' : ' notice--error'}`} role='alert'>{error}</div>
        {secret === null
          ? error === null && <p role='status'>{text('secondFactor.starting')}</p>
          : (
            <>
              <QrCode text={secret.uri} label={text('secondFactor.qrLabel')} />
              <p>{text('secondFactor.keyIntro')}</p>
              <p className='enrolment-key'>
                <code data-testid='enrolment-key'>{groupedKey(secret.secret)}</code>
                <CopyButton text={secret.secret} label={text('secondFactor.copyKey')} />
              </p>
              <CodeField label={text('secondFactor.firstCodeLabel')} value={code} onChange={setCode} invalid={error !== null} />
              {rememberOffered && <RememberBrowser checked={remember} onChange={setRemember} />}
              <Button type='submit' busy={busy} disabled={!isAuthenticatorCode(code)}>{text('secondFactor.confirm')}</Button>
            </>
            )}
        <Button variant='text' disabled={busy} onClick={onCancel}>{cancelLabel}</Button>
      </form>
    </section>
  )
}
