import { Button } from '../components/Button.js'
import { NeedsScript } from '../components/NeedsScript.js'
import type { SignInMethods } from './form-view-props.js'

/**
 * The 'or' divider, the Google button and the custom SSO button, as
 * login_method allows. Without scripts, a note stands for Google and a small
 * form for SSO (SsoFallback).
 */
export function AlternativeMethods ({ verb, busy, methods, email }: { verb: 'Login' | 'Sign up', busy: boolean, methods: SignInMethods, email: string }) {
  if (!methods.google && !methods.sso) return null
  const ssoLabel = `${verb} with Custom SSO provider`
  return (
    <>
      {methods.password && <div className='divider' role='separator'><span>or</span></div>}
      <div className='methods'>
        {methods.google && (
          <NeedsScript fallback={(content) => content.note('google')}>
            <Button variant='secondary' disabled={busy || !methods.googleReady} onClick={methods.onGoogle}>
              {verb} with Google
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
