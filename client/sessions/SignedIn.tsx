import { useEffect, useRef, type ComponentType } from 'react'
import { safeRedirectTarget } from '../../common/page/redirect-target.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { Button } from '../components/Button.js'
import { Spinner } from '../components/Spinner.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { useMessages } from '../languages/messages.js'
import { useThisSession, type ThisSessionOptions } from './useThisSession.js'

/**
 * The signed-in state (docs/page.md, "A visitor who is signed in already"):
 * the page opened with a live session and nowhere else to go shows whom it
 * is signed in as and a way to sign out, instead of an empty login form.
 * Small on purpose, and loaded as a chunk of its own only with a token cookie: the account
 * view (`?view=account`) is to take its place.
 */
function SignedIn (options: ThisSessionOptions) {
  const { text } = useMessages()
  const { email, signOut, signingOut, error } = useThisSession(options)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => { if (email !== null) heading.current?.focus() }, [email])
  if (email === null) return <Spinner />
  return (
    <section className='form' aria-labelledby='signed-in-heading'>
      <h1 id='signed-in-heading' className='card__title' tabIndex={-1} ref={heading}>{text('signedIn.heading')}</h1>
      <p>{text('signedIn.as', { email })}</p>
      <div className={`notice${error === null ? '' : ' notice--error'}`} role='alert'>{error}</div>
      <Button busy={signingOut} onClick={signOut}>{text('signedIn.signOut')}</Button>
    </section>
  )
}

/**
 * The state as SignInPage loads it, with its texts (later texts:
 * common/languages/message-catalogue.ts), where it shows: where a sign-in
 * would land on this page again, with no `redirect` or one whose safe target
 * is the page itself (an unsafe one falls back to it too). Null where the
 * visitor is to go on: the login form, as before.
 */
export async function forThisPage (redirect: string | null, config: RuntimeConfig): Promise<ComponentType<ThisSessionOptions> | null> {
  const target = safeRedirectTarget(redirect, window.location, { cookieDomain: config.cookieDomain, allowedHosts: config.redirectAllowedHosts })
  if (target.split('#')[0] !== `${window.location.origin}/`) return null
  return (await withLaterPageTexts(SignedIn)).default
}
