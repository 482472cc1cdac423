import { FormName } from '../components/FormName.js'
import { useMessages } from '../languages/messages.js'

/**
 * "Email me a sign-in code" without scripts, in a `<noscript>` in place of
 * the button that opens the steps: a disclosure holding a form that posts
 * `form=email-code-request` with the address; the edge sends the code and
 * answers with the code step (PageFormState.emailCodeSent). Plain markup with
 * fixed ids, as SsoFallback's: React renders it on the server only.
 */
export function EmailCodeFallback ({ label, email }: { label: string, email: string }) {
  const { text } = useMessages()
  return (
    <details className='sso-fallback'>
      <summary className='button button--secondary'>{label}</summary>
      <form className='form' method='post'>
        <FormName name='email-code-request' />
        <div className='field field--full'>
          <label htmlFor='email-code-fallback-email'>{text('field.email')}</label>
          <div className='field__control'>
            <input id='email-code-fallback-email' type='email' name='email' dir='ltr' autoComplete='username' spellCheck={false} defaultValue={email} />
          </div>
        </div>
        <button type='submit' className='button button--primary'><span>{text('emailCode.send')}</span></button>
      </form>
    </details>
  )
}
