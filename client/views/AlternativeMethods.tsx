import { Button } from '../components/Button.js'
import type { SignInMethods } from './form-view-props.js'

/** The 'or' divider, the Google button and the custom SSO button, as login_method allows. */
export function AlternativeMethods ({ verb, busy, methods }: { verb: 'Login' | 'Sign up', busy: boolean, methods: SignInMethods }) {
  if (!methods.google && !methods.sso) return null
  return (
    <>
      {methods.password && <div className='divider' role='separator'><span>or</span></div>}
      <div className='methods'>
        {methods.google && (
          <Button variant='secondary' disabled={busy || !methods.googleReady} onClick={methods.onGoogle}>
            {verb} with Google
          </Button>
        )}
        {methods.sso && (
          <Button variant='secondary' disabled={busy} onClick={methods.onSso}>
            {verb} with Custom SSO provider
          </Button>
        )}
      </div>
    </>
  )
}
