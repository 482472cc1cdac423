import { useEffect, useState } from 'react'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { useMessages } from '../languages/messages.js'
import { storeSessionTokens } from './session-cookies.js'
import { clearTokenCookies, currentAuthClaims, shownClaims } from './signed-in-session.js'
import { endThisSession, refreshThisSession } from './this-session-calls.js'

export interface ThisSessionOptions {
  readonly config: Pick<RuntimeConfig, 'cookieDomain' | 'authCookieHttpOnly'>
  /** The state goes and the page shows its login form: with this text once the session ended, null when none lived. */
  readonly onEnd: (notice: string | null) => void
}

export interface ThisSession {
  /** Whom this browser is signed in as; null while that is being found out. */
  readonly email: string | null
  readonly signOut: () => void
  readonly signingOut: boolean
  readonly error: string | null
}

/**
 * This browser's session, for the signed-in state: whom the `auth` cookie
 * names while its token is valid, else whom a refreshed token names (the
 * refresh token outlives the 15-minute auth token); and signing out, which
 * revokes the refresh token (`token/revoke`) and removes the token cookies.
 * A refusal of the revocation (no refresh cookie, a token the service
 * no longer knows) leaves nothing to end: the page's cookies go all the same;
 * a failed call leaves the state, saying so.
 */
export function useThisSession ({ config: { cookieDomain, authCookieHttpOnly }, onEnd }: ThisSessionOptions): ThisSession {
  const { text } = useMessages()
  const [email, setEmail] = useState<string | null>(() => currentAuthClaims()?.email ?? null)
  const [signingOut, setSigningOut] = useState(false)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    if (email !== null) return
    void refreshThisSession().then((auth) => {
      const claims = auth === null ? null : shownClaims(auth)
      if (auth === null || claims === null) return onEnd(null)
      if (!authCookieHttpOnly) storeSessionTokens({ auth }, cookieDomain)
      setEmail(claims.email)
    })
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at mount: whom the session names when the state shows
  }, [])

  function signOut (): void {
    setSigningOut(true)
    setError(null)
    void endThisSession().then((ended) => {
      if (!ended) {
        setSigningOut(false)
        setError(text('signedIn.signOutFailed'))
        return
      }
      clearTokenCookies(cookieDomain)
      onEnd(text('signedIn.signedOut'))
    })
  }

  return { email, signOut, signingOut, error }
}
