import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import { isAuthenticatorCode, withoutSpaces } from '../../common/second-factor/second-factor-codes.js'
import type { CodeProof, SecretProof } from './fresh-proof-calls.js'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import { Button } from '../components/Button.js'
import { PasswordField } from '../components/PasswordField.js'
import { useMessages } from '../languages/messages.js'
import { CodeField } from '../second-factor/code-field.js'
import type { FreshProof, SecretWay } from './useFreshProof.js'
import { EmailCodeProof } from './EmailCodeProof.js'

/** Which code the form asks for: from the authenticator app, or a recovery code in its place. */
type CodeKind = 'code' | 'recovery'

/**
 * What the form sends for the way the service named, or null while a part
 * is missing: the password, the password with a code, or a code alone.
 */
function secretOf (way: SecretWay, password: string, code: CodeProof | null): SecretProof | null {
  if (way === 'code') return code
  if (password === '') return null
  if (way === 'password') return { password }
  return code === null ? null : { password, ...code }
}

/**
 * "Confirm it's you": the step that takes the card when a change to how the
 * account signs in needs a fresh proof (useFreshProof). It offers what a
 * sign-in of the account asks for, as the service named it: the password;
 * the password and an authenticator (or recovery) code, in one form; or the
 * code alone where the account has no password. Beside it, a passkey where
 * the account has one, and always signing in again. Its heading takes the
 * focus, as every step's does; a refusal is announced and puts the focus
 * back in the first field.
 */
export function ConfirmStep ({ proof, explanation = 'freshProof.explanation' }: {
  proof: FreshProof
  /** What the proof is for: a new way to sign in, unless told (the account view's changes). */
  explanation?: MessageKey
}) {
  const { text } = useMessages()
  const id = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  const form = useRef<HTMLFormElement>(null)
  const ways = proof.ways ?? []
  // The service names at most one of them (docs/account-changes.md); the passkey is a button of its own.
  const secretWay = ways.find((way): way is SecretWay => way !== 'passkey') ?? null
  const asksPassword = secretWay === 'password' || secretWay === 'password+code'
  const asksCode = secretWay === 'password+code' || secretWay === 'code'
  const [codeKind, setCodeKind] = useState<CodeKind>('code')
  /** A field the visitor switched to takes the focus; the first one leaves it on the heading. */
  const [switched, setSwitched] = useState(false)
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [recoveryCode, setRecoveryCode] = useState('')
  useEffect(() => heading.current?.focus(), [])

  const busy = proof.proving !== null
  const invalid = proof.error !== null
  const errorId = `${id}-error`
  const describedBy = invalid ? errorId : undefined
  const codePart: CodeProof | null = codeKind === 'code'
    ? (isAuthenticatorCode(code) ? { code } : null)
    : (withoutSpaces(recoveryCode) === '' ? null : { recovery_code: withoutSpaces(recoveryCode) })
  const secret = secretWay === null ? null : secretOf(secretWay, password, codePart)

  async function submit (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (busy || secretWay === null || secret === null) return
    if (await proof.withSecret(secretWay, secret)) form.current?.querySelector('input')?.focus()
  }

  function switchTo (next: CodeKind): void {
    proof.forgetRefusal()
    setSwitched(true)
    setCodeKind(next)
  }

  return (
    <section aria-labelledby={`${id}-heading`}>
      <h1 id={`${id}-heading`} className='card__title' tabIndex={-1} ref={heading}>{text('freshProof.heading')}</h1>
      <form ref={form} className='form' noValidate aria-describedby={describedBy} onSubmit={(event) => { void submit(event) }}>
        <p>{text(explanation)}</p>
        {secretWay === 'password+code' && <p>{text('freshProof.passwordAndCode')}</p>}
        <div id={errorId} className={`notice${invalid ? ' notice--error' : ''}`} role='alert'>{proof.error}</div>
        {asksPassword && (
          <PasswordField label={text('field.password')} revealLabels={{ show: text('field.showPassword'), hide: text('field.hidePassword') }}
            name='password' autoComplete='current-password' width='full' value={password} onChange={setPassword}
            invalid={invalid} describedBy={describedBy} />
        )}
        {asksCode && codeKind === 'code' && (
          <CodeField label={text('secondFactor.codeLabel')} value={code} onChange={setCode} invalid={invalid} describedBy={describedBy} autoFocus={switched} />
        )}
        {asksCode && codeKind === 'recovery' && (
          <div className='field field--full'>
            <label htmlFor={`${id}-recovery`}>{text('secondFactor.recoveryLabel')}</label>
            <div className='field__control'>
              <input id={`${id}-recovery`} type='text' dir='ltr' autoComplete='off' spellCheck={false} autoCapitalize='none' autoFocus={switched}
                value={recoveryCode} aria-invalid={invalid || undefined} aria-describedby={describedBy} onChange={(event) => setRecoveryCode(event.target.value)} />
            </div>
          </div>
        )}
        {secretWay !== null && (
          <Button type='submit' busy={busy && proof.proving !== 'passkey'} disabled={busy || secret === null}>{text('freshProof.confirm')}</Button>
        )}
        {ways.includes('passkey') && (
          <Button variant='secondary' busy={proof.proving === 'passkey'} disabled={busy} onClick={() => { void proof.withPasskey() }}>
            {text('freshProof.usePasskey')}
          </Button>
        )}
        {asksCode && (
          <Button variant='text' disabled={busy} onClick={() => switchTo(codeKind === 'code' ? 'recovery' : 'code')}>
            {text(codeKind === 'code' ? 'secondFactor.useRecovery' : 'secondFactor.useCode')}
          </Button>
        )}
        <Button variant='text' disabled={busy} onClick={proof.signInAgain}>{text('freshProof.signInAgain')}</Button>
      </form>
      {/* Beside the form, a form of its own: an account with neither a password nor a passkey proves itself by its address. */}
      <EmailCodeProof proof={proof} />
    </section>
  )
}
