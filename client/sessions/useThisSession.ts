import { useState } from 'react'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { useMessages } from '../languages/messages.js'
import { clearTokenCookies } from './signed-in-session.js'
import { endThisSession } from './this-session-calls.js'

export interface ThisSessionOptions {
  readonly config: Pick<RuntimeConfig, 'cookieDomain'>
  /** The state goes and the page shows its login form, with this text: the session ended. */
  readonly onEnd: (notice: string) => void
}

export interface ThisSession {
  readonly signOut: () => void
  readonly signingOut: boolean
  readonly error: string | null
}

/**
 * Signing this browser out, for the signed-in state: the refresh token is
 * revoked (`token/revoke`) and the token cookies removed.
 * A refusal of the revocation (no refresh cookie, a token the service
 * no longer knows) leaves nothing to end: the page's cookies go all the same;
 * a failed call leaves the state, saying so.
 */
export function useThisSession ({ config: { cookieDomain }, onEnd }: ThisSessionOptions): ThisSession {
  const { text } = useMessages()
  const [signingOut, setSigningOut] = useState(false)
  const [error, setError] = useState<string | null>(null)

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

  return { signOut, signingOut, error }
}
