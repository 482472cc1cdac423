import { Button } from '../components/Button.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import { useMessages } from '../languages/messages.js'
import type { SignInMethods } from '../page/form-view-props.js'

/** Each button's label per view: whole sentences, since word order differs by language. */
const LABELS: Readonly<Record<'login' | 'register', { readonly google: MessageKey, readonly sso: MessageKey }>> = {
  login: { google: 'methods.loginWithGoogle', sso: 'methods.loginWithSso' },
  register: { google: 'methods.signUpWithGoogle', sso: 'methods.signUpWithSso' }
}

/**
 * The 'or' divider, the Google button and the custom SSO button, as
 * login_method allows. Without scripts, a note stands for Google and a small
 * form for SSO (SsoFallback).
 */
export function AlternativeMethods ({ intent, busy, methods, email }: { intent: 'login' | 'register', busy: boolean, methods: SignInMethods, email: string }) {
  const { text } = useMessages()
  if (!methods.google && !methods.sso) return null
  const ssoLabel = text(LABELS[intent].sso)
  return (
    <>
      {methods.password && <div className='divider' role='separator'><span>{text('methods.or')}</span></div>}
      <div className='methods'>
        {methods.google && (
          <NeedsScript fallback={(content) => content.note('google')}>
            <Button variant='secondary' disabled={busy || !methods.googleReady} onClick={methods.onGoogle}>
              {text(LABELS[intent].google)}
            </Button>
          </NeedsScript>
        )}
        {methods.sso && (
          <NeedsScript fallback={(content) => content.ssoForm(ssoLabel, email)}>
            <Button variant='secondary' disabled={busy} onClick={methods.onSso}>{ssoLabel}</Button>
          </NeedsScript>
        )}
      </div>
    </>
  )
}
