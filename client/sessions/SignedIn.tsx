import { useEffect, useRef, type ComponentType } from 'react'
import { safeRedirectTarget } from '../../common/page/redirect-target.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { Button } from '../components/Button.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { useMessages } from '../languages/messages.js'
import { storeSessionTokens } from './session-cookies.js'
import { authCookieClaims, shownClaims } from './signed-in-session.js'
import { refreshThisSession } from './this-session-calls.js'
import { useThisSession, type ThisSessionOptions } from './useThisSession.js'

/**
 * The signed-in state (docs/page.md, "A visitor who is signed in already"):
 * the page opened with a live session and nowhere else to go shows whom it
 * is signed in as and a way to sign out, instead of an empty login form.
 * Small on purpose, and loaded as a chunk of its own only with a token cookie; it links to
 * the account view (`?view=account`), where the account is managed.
 */
function SignedIn ({ email, ...options }: ThisSessionOptions & { readonly email: string }) {
  const { text } = useMessages()
  const { signOut, signingOut, error } = useThisSession(options)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <section className='form' aria-labelledby='signed-in-heading'>
      <h1 id='signed-in-heading' className='card__title' tabIndex={-1} ref={heading}>{text('signedIn.heading')}</h1>
      <p>{text('signedIn.as', { email })}</p>
      <div className={`notice${error === null ? '' : ' notice--error'}`} role='alert'>{error}</div>
      <Button busy={signingOut} onClick={signOut}>{text('signedIn.signOut')}</Button>
      {/* A real link: the edge serves the account view only with a session, which this state has. */}
      <p className='links'><a href='/?view=account'>{text('signedIn.accountLink')}</a></p>
    </section>
  )
}

/**
 * Whom the live session names: the `auth` cookie's token while it is valid;
 * once it has expired (after 15 minutes; the refresh token lives 14 days), a
 * refreshed one's, stored as a sign-in's is. Null when no session lives, and
 * without a call when the cookie names no one.
 */
async function liveSessionEmail (config: Pick<RuntimeConfig, 'cookieDomain' | 'authCookieHttpOnly'>): Promise<string | null> {
  const claims = authCookieClaims()
  if (claims === null) return null
  if (claims.exp * 1000 > Date.now()) return claims.email
  const auth = await refreshThisSession()
  const refreshed = auth === null ? null : shownClaims(auth)
  if (auth === null || refreshed === null) return null
  if (!config.authCookieHttpOnly) storeSessionTokens({ auth }, config.cookieDomain)
  return refreshed.email
}

/**
 * The state as SignInPage loads it, with its texts (later texts:
 * common/languages/message-catalogue.ts), where it shows: a live session,
 * and a sign-in that would land on this page again (no `redirect`, or one
 * whose safe target is the page itself; an unsafe one falls back to it too).
 * Null where the visitor is to sign in or go on: the login form, as before.
 */
export async function forThisPage (redirect: string | null, config: RuntimeConfig): Promise<ComponentType<ThisSessionOptions> | null> {
  const target = safeRedirectTarget(redirect, window.location, { cookieDomain: config.cookieDomain, allowedHosts: config.redirectAllowedHosts })
  if (target.split('#')[0] !== `${window.location.origin}/`) return null
  const email = await liveSessionEmail(config)
  if (email === null) return null
  const { default: WithTexts } = await withLaterPageTexts(SignedIn)
  return function SignedInAs (props: ThisSessionOptions) {
    return <WithTexts email={email} {...props} />
  }
}
