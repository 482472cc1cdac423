import { FormName } from '../components/FormName.js'
import { useMessages } from '../languages/messages.js'

/**
 * The SSO start without scripts, in a `<noscript>` in place of the button
 * that opens the modal: a disclosure (details/summary, keyboard-operable
 * without scripts) holding a form that posts `form=sso` with the email whose
 * domain picks the identity provider. Plain markup with fixed ids: React
 * renders it on the server only.
 */
export function SsoFallback ({ label, email }: { label: string, email: string }) {
  const { text } = useMessages()
  return (
    <details className='sso-fallback'>
      <summary className='button button--secondary'>{label}</summary>
      <form className='form' method='post'>
        <FormName name='sso' />
        <div className='field field--full'>
          <label htmlFor='sso-fallback-email'>{text('field.email')}</label>
          <div className='field__control'>
            <input id='sso-fallback-email' type='email' name='email' dir='ltr' autoComplete='username' spellCheck={false} defaultValue={email} />
          </div>
        </div>
        <button type='submit' className='button button--primary'><span>{text('sso.continue')}</span></button>
      </form>
    </details>
  )
}
