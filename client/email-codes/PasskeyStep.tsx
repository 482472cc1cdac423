import { useEffect, useId, useRef, useState } from 'react'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { Button } from '../components/Button.js'
import { useMessages } from '../languages/messages.js'
import { loadChunk } from '../page/load-chunk.js'

/**
 * The passkey sign-up's last step (docs/passkeys.md): signed in by the
 * emailed code, the visitor creates a passkey with the browser's prompt, the
 * sign-in a fresh proof for it. The ceremony is the passkey chunk's
 * (client/passkeys/passkey-ceremonies.ts createPasskey), loaded only now.
 * Created or "Not now", the page leaves; a failure is said and the step stays.
 */
export function PasskeyStep ({ auth, onDone }: { auth: string, onDone: () => void }) {
  const { text } = useMessages()
  const id = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  const [busy, setBusy] = useState(false)
  const [failed, setFailed] = useState(false)
  useEffect(() => heading.current?.focus(), [])

  async function create (): Promise<void> {
    setBusy(true)
    setFailed(false)
    const outcome = await loadChunk(() => import('../passkeys/index.js')).then((chunk) => chunk.createPasskey(auth), () => 'failed' as const)
    if (outcome === 'created') {
      onDone()
      return
    }
    setBusy(false)
    // A prompt the visitor closed leaves the step as it was: the choice is still theirs.
    if (outcome !== 'cancelled') setFailed(true)
  }

  return (
    <section className='form' aria-labelledby={`${id}-heading`}>
      <h1 id={`${id}-heading`} className='card__title' tabIndex={-1} ref={heading}>{text('emailCode.passkeyHeading')}</h1>
      <div className={`notice${failed ? ' notice--error' : ''}`} role='alert'>{failed ? text(ERROR_MESSAGE_KEYS.GENERIC) : null}</div>
      <p>{text('emailCode.passkeyExplanation')}</p>
      <Button busy={busy} onClick={() => { void create() }}>{text('passkey.create')}</Button>
      <Button variant='text' disabled={busy} onClick={onDone}>{text('passkey.notNow')}</Button>
    </section>
  )
}
