import { useEffect, useId, useMemo, useRef, useState } from 'react'
import { Button } from '../components/Button.js'
import { CopyButton } from '../components/CopyButton.js'
import { SECOND_FACTOR_MESSAGES as TEXT } from './messages.js'

/** The file the Download link saves. */
export const RECOVERY_CODES_FILE_NAME = 'recovery-codes.txt'

/**
 * The ten recovery codes, shown once: copy, download as a text file, and
 * "I have saved these codes" before Continue, so that nobody clicks past
 * the one chance to keep them.
 */
export function RecoveryCodes ({ codes, productName, onContinue }: { codes: readonly string[], productName: string, onContinue: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null)
  const checkboxId = useId()
  const [saved, setSaved] = useState(false)
  const [continuing, setContinuing] = useState(false)
  const text = `${productName} recovery codes\n\n${codes.join('\n')}\n`
  // A Blob URL for the link, revoked when the step goes.
  const downloadUrl = useMemo(() => URL.createObjectURL(new Blob([text], { type: 'text/plain' })), [text])
  useEffect(() => () => URL.revokeObjectURL(downloadUrl), [downloadUrl])
  useEffect(() => heading.current?.focus(), [])

  return (
    <section className='form' aria-labelledby='recovery-codes-heading'>
      <h1 id='recovery-codes-heading' className='card__title' tabIndex={-1} ref={heading}>{TEXT.CODES_HEADING}</h1>
      <p>{TEXT.CODES_EXPLANATION}</p>
      <ol className='recovery-codes' aria-labelledby='recovery-codes-heading'>
        {codes.map((code) => <li key={code}><code>{code}</code></li>)}
      </ol>
      <div className='form__row'>
        <CopyButton text={codes.join('\n')} label={TEXT.COPY_CODES} />
        <a className='button button--secondary' href={downloadUrl} download={RECOVERY_CODES_FILE_NAME}>{TEXT.DOWNLOAD_CODES}</a>
      </div>
      <label className='checkbox' htmlFor={checkboxId}>
        <input id={checkboxId} type='checkbox' checked={saved} onChange={(event) => setSaved(event.target.checked)} />
        <span>{TEXT.CODES_SAVED}</span>
      </label>
      <Button disabled={!saved} busy={continuing} onClick={() => { setContinuing(true); onContinue() }}>{TEXT.CONTINUE}</Button>
    </section>
  )
}
