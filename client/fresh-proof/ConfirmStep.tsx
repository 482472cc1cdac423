import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import { isAuthenticatorCode, withoutSpaces } from '../../common/second-factor-codes.js'
import type { SecretProof } from '../api/fresh-proof.js'
import { Button } from '../components/Button.js'
import { PasswordField } from '../components/PasswordField.js'
import { useMessages } from '../lib/messages.js'
import { CodeField } from '../second-factor/code-field.js'
import type { FreshProof } from './useFreshProof.js'

/** What the form asks for: the password, an authenticator code, or a recovery code. */
type Typed = 'password' | 'code' | 'recovery'

/**
 * "Confirm it's you": the step that takes the card when a change to how the
 * account signs in needs a fresh proof (useFreshProof). It offers the ways
 * the service named: the password (first, where there is one), a passkey, an
 * authenticator or recovery code; and always signing in again. Its heading
 * takes the focus, as every step's does; a refusal is announced and puts the
 * focus back in the field.
 */
export function ConfirmStep ({ proof }: { proof: FreshProof }) {
  const { text } = useMessages()
  const id = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  const form = useRef<HTMLFormElement>(null)
  const ways = proof.ways ?? []
  const [typed, setTyped] = useState<Typed | null>(() => ways.includes('password') ? 'password' : ways.includes('code') ? 'code' : null)
  /** A field the visitor switched to takes the focus; the first one leaves it on the heading. */
  const [switched, setSwitched] = useState(false)
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [recoveryCode, setRecoveryCode] = useState('')
  useEffect(() => heading.current?.focus(), [])

  const busy = proof.proving !== null
  const invalid = proof.error !== null
  const errorId = `${id}-error`
  const secret: SecretProof | null = typed === 'password'
    ? (password === '' ? null : { password })
    : typed === 'code'
      ? (isAuthenticatorCode(code) ? { code } : null)
      : typed === 'recovery' && withoutSpaces(recoveryCode) !== '' ? { recovery_code: withoutSpaces(recoveryCode) } : null

  async function submit (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (busy || secret === null) return
    if (await proof.withSecret(typed === 'password' ? 'password' : 'code', secret)) form.current?.querySelector('input')?.focus()
  }

  function switchTo (next: Typed): void {
    proof.forgetRefusal()
    setSwitched(true)
    setTyped(next)
  }

  const switchButton = (next: Typed, label: string) => (
    <Button variant='text' disabled={busy} onClick={() => switchTo(next)}>{label}</Button>
  )

  return (
    <section aria-labelledby={`${id}-heading`}>
      <h1 id={`${id}-heading`} className='card__title' tabIndex={-1} ref={heading}>{text('freshProof.heading')}</h1>
      <form ref={form} className='form' noValidate aria-describedby={invalid ? errorId : undefined} onSubmit={(event) => { void submit(event) }}>
        <p>{text('freshProof.explanation')}</p>
        <div id={errorId} className={`notice${invalid ? ' notice--error' : ''}`} role='alert'>{proof.error}</div>
        {typed === 'password' && (
          <PasswordField label={text('field.password')} revealLabels={{ show: text('field.showPassword'), hide: text('field.hidePassword') }}
            name='password' autoComplete='current-password' width='full' value={password} onChange={setPassword}
            invalid={invalid} describedBy={invalid ? errorId : undefined} autoFocus={switched} />
        )}
        {typed === 'code' && <CodeField label={text('secondFactor.codeLabel')} value={code} onChange={setCode} invalid={invalid} autoFocus={switched} />}
        {typed === 'recovery' && (
          <div className='field field--full'>
            <label htmlFor={`${id}-recovery`}>{text('secondFactor.recoveryLabel')}</label>
            <div className='field__control'>
              <input id={`${id}-recovery`} type='text' dir='ltr' autoComplete='off' spellCheck={false} autoCapitalize='none' autoFocus={switched}
                value={recoveryCode} aria-invalid={invalid || undefined} onChange={(event) => setRecoveryCode(event.target.value)} />
            </div>
          </div>
        )}
        {typed !== null && (
          <Button type='submit' busy={busy && proof.proving !== 'passkey'} disabled={busy || secret === null}>{text('freshProof.confirm')}</Button>
        )}
        {ways.includes('passkey') && (
          <Button variant='secondary' busy={proof.proving === 'passkey'} disabled={busy} onClick={() => { void proof.withPasskey() }}>
            {text('freshProof.usePasskey')}
          </Button>
        )}
        {typed === 'code' && switchButton('recovery', text('secondFactor.useRecovery'))}
        {typed === 'recovery' && switchButton('code', text('secondFactor.useCode'))}
        {ways.includes('code') && typed !== 'code' && typed !== 'recovery' && switchButton('code', text('freshProof.useCode'))}
        {ways.includes('password') && typed !== 'password' && switchButton('password', text('freshProof.usePassword'))}
        <Button variant='text' disabled={busy} onClick={proof.signInAgain}>{text('freshProof.signInAgain')}</Button>
      </form>
    </section>
  )
}
