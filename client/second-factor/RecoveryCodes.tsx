import { useEffect, useId, useMemo, useRef, useState } from 'react'
import { Button } from '../components/Button.js'
import { CopyButton } from '../components/CopyButton.js'
import { useMessages } from '../languages/messages.js'
import { EndOtherSessions } from '../sessions/EndOtherSessions.js'

/** The file the Download link saves. */
export const RECOVERY_CODES_FILE_NAME = 'recovery-codes.txt'

export interface RecoveryCodesProps {
  readonly codes: readonly string[]
  readonly productName: string
  readonly onContinue: () => void
  /**
   * The signed-in account's auth token after an enrolment it chose (the
   * offer's): "Sign out of all other sessions" is offered. Null after an
   * enrolment a login requires, whose session starts only with Continue.
   */
  readonly endOthersWith: string | null
}

/**
 * The ten recovery codes, shown once: copy, download as a text file, and
 * "I have saved these codes" before Continue, so that nobody clicks past
 * the one chance to keep them. The factor is on by now: after an enrolment
 * the account chose, the other sessions can be ended here too.
 */
export function RecoveryCodes ({ codes, productName, onContinue, endOthersWith }: RecoveryCodesProps) {
  const { text } = useMessages()
  const heading = useRef<HTMLHeadingElement>(null)
  const checkboxId = useId()
  const [saved, setSaved] = useState(false)
  const [continuing, setContinuing] = useState(false)
  const file = `${text('secondFactor.codesFileTitle', { product: productName })}\n\n${codes.join('\n')}\n`
  // A Blob URL for the link, revoked when the step goes.
  const downloadUrl = useMemo(() => URL.createObjectURL(new Blob([file], { type: 'text/plain' })), [file])
  useEffect(() => () => URL.revokeObjectURL(downloadUrl), [downloadUrl])
  useEffect(() => heading.current?.focus(), [])

  return (
    <section className='form' aria-labelledby='recovery-codes-heading'>
      <h1 id='recovery-codes-heading' className='card__title' tabIndex={-1} ref={heading}>{text('secondFactor.codesHeading')}</h1>
      <p>{text('secondFactor.codesExplanation')}</p>
      <ol className='recovery-codes' aria-labelledby='recovery-codes-heading'>
        {codes.map((code) => <li key={code}><code>{code}</code></li>)}
      </ol>
      <div className='form__row'>
        <CopyButton text={codes.join('\n')} label={text('secondFactor.copyCodes')} />
        <a className='button button--secondary' href={downloadUrl} download={RECOVERY_CODES_FILE_NAME}>{text('secondFactor.downloadCodes')}</a>
      </div>
      <label className='checkbox' htmlFor={checkboxId}>
        <input id={checkboxId} type='checkbox' checked={saved} onChange={(event) => setSaved(event.target.checked)} />
        <span>{text('secondFactor.codesSaved')}</span>
      </label>
      {endOthersWith !== null && <EndOtherSessions auth={endOthersWith} />}
      <Button disabled={!saved} busy={continuing} onClick={() => { setContinuing(true); onContinue() }}>{text('secondFactor.continue')}</Button>
    </section>
  )
}
