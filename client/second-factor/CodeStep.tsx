import { useId, useState, type FormEvent } from 'react'
import { verifySecondFactor } from './second-factor-calls.js'
import type { SecondFactorVerifyAnswer } from '../../common/second-factor/second-factor-answers.js'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { refusalText, useMessages } from '../languages/messages.js'
import { isAuthenticatorCode, withoutSpaces } from '../../common/second-factor/second-factor-codes.js'
import { CodeField } from './code-field.js'
import { RememberBrowser } from './RememberBrowser.js'

export interface CodeStepProps {
  /** The login's challenge (docs/second-factor.md). */
  readonly challenge: string
  /** A refusal to show at once: the form post's, when the page answers one (PageFormState). */
  readonly refusal?: string | null
  /** Whether to offer "Don't ask again on this browser for 30 days". */
  readonly rememberOffered: boolean
  /** A local-network login's listener, which issued the challenge (client/second-factor/second-factor-calls.ts); null: the edge's. */
  readonly localOrigin?: string | null
  /** The login's tokens: the page stores them and leaves. */
  readonly onTokens: (tokens: Extract<SecondFactorVerifyAnswer, { kind: 'tokens' }>) => void
  /** Back to the login form (a challenge that expired, a lost phone). */
  readonly onBack: () => void
}

/**
 * The code step of a login whose second factor is due, in the card in place
 * of the login form: an authenticator code, or a recovery code instead. A
 * refusal (a wrong code, a throttled account, an expired challenge) is shown
 * here and the step stays; the challenge survives a refusal. The focus goes
 * to the code field (not the heading, as in the passkey offer): the visitor
 * came to type, and the field's label says what.
 */
export function CodeStep ({ challenge, refusal = null, rememberOffered, localOrigin = null, onTokens, onBack }: CodeStepProps) {
  const messages = useMessages()
  const { text } = messages
  const errorId = useId()
  const [recovery, setRecovery] = useState(false)
  const [code, setCode] = useState('')
  const [recoveryCode, setRecoveryCode] = useState('')
  const [remember, setRemember] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(refusal)

  const ready = recovery ? withoutSpaces(recoveryCode) !== '' : isAuthenticatorCode(code)

  async function submit (event: FormEvent): Promise<void> {
    event.preventDefault()
    if (busy) return
    // Enabled before the code is complete: without scripts the button must post, so the server's markup has it enabled.
    if (!ready) {
      if (!recovery) setError(text('secondFactor.codeIncomplete'))
      return
    }
    setBusy(true)
    setError(null)
    const proof = recovery ? { recovery_code: withoutSpaces(recoveryCode) } : { code }
    const answer = await verifySecondFactor({ challenge, ...proof, remember_browser: rememberOffered && remember }, localOrigin)
    if (answer.kind === 'tokens') {
      // Busy until the page has left: the tokens are on their way to the cookies.
      onTokens(answer)
      return
    }
    setBusy(false)
    setError(answer.kind === 'error' ? refusalText(answer, messages) : text(ERROR_MESSAGE_KEYS.GENERIC))
  }

  function switchProof (): void {
    setRecovery(!recovery)
    setError(null)
  }

  return (
    <section aria-labelledby='second-factor-heading'>
      <h1 id='second-factor-heading' className='card__title'>{text('secondFactor.codeHeading')}</h1>
      <form className='form' method='post' noValidate aria-describedby={error === null ? undefined : errorId} onSubmit={(event) => { void submit(event) }}>
        <FormName name='secondFactor' />
        <input type='hidden' name='challenge' value={challenge} />
        <p>{recovery ? text('secondFactor.recoveryExplanation') : text('secondFactor.codeExplanation')}</p>
        <div id={errorId} className={`notice${error === null ? '' : ' notice--error'}`} role='alert'>{error}</div>
        {recovery
          ? (
            <div className='field field--full'>
              <label htmlFor={`${errorId}-recovery`}>{text('secondFactor.recoveryLabel')}</label>
              <div className='field__control'>
                <input id={`${errorId}-recovery`} name='code' type='text' dir='ltr' autoComplete='off' spellCheck={false} autoCapitalize='none' autoFocus
                  value={recoveryCode} aria-invalid={error !== null || undefined} onChange={(event) => setRecoveryCode(event.target.value)} />
              </div>
            </div>
            )
          : <CodeField label={text('secondFactor.codeLabel')} value={code} onChange={setCode} invalid={error !== null} autoFocus />}
        {rememberOffered && <RememberBrowser checked={remember} onChange={setRemember} />}
        <Button type='submit' busy={busy}>{text('secondFactor.verify')}</Button>
        {/* Without scripts the code field takes a recovery code as well (the service tells them apart), and the login link leads back. */}
        <NeedsScript>
          <Button variant='text' disabled={busy} onClick={switchProof}>{recovery ? text('secondFactor.useCode') : text('secondFactor.useRecovery')}</Button>
        </NeedsScript>
        <NeedsScript fallback={(content) => content.loginLink(text('secondFactor.backToLogin'))}>
          <Button variant='text' disabled={busy} onClick={onBack}>{text('secondFactor.backToLogin')}</Button>
        </NeedsScript>
      </form>
    </section>
  )
}
