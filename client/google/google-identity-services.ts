import { useEffect, useRef, useState, type RefObject } from 'react'
import { loadChunk } from '../page/load-chunk.js'

interface GoogleCredentialResponse {
  readonly credential?: string
}

/** The part of Google Identity Services' client the page uses (google-start.ts loads its script). */
export interface GoogleIdentityServices {
  initialize (options: {
    client_id: string
    callback: (response: GoogleCredentialResponse) => void
    nonce?: string
    ux_mode?: 'popup' | 'redirect'
    use_fedcm_for_button?: boolean
    itp_support?: boolean
  }): void
  renderButton (parent: HTMLElement, options: { type?: 'standard' | 'icon', width?: number, text?: string }): void
  prompt (): void
}

declare global {
  interface Window {
    google?: { accounts?: { id?: GoogleIdentityServices } }
  }
}

/** Whether Google sign-in is offered on this host (GOOGLE_CLIENT_ID set, host not disabled). */
export function googleSignInAvailable (clientId: string | null, disabledHostnames: readonly string[], hostname: string): clientId is string {
  return clientId !== null && !disabledHostnames.includes(hostname.toLowerCase())
}

export interface GoogleIdentity {
  /** The Google button stays disabled until Google's script has loaded. */
  readonly ready: boolean
  /** Where Google's own button is rendered, hidden. */
  readonly hiddenButtonRef: RefObject<HTMLDivElement | null>
  /** Starts Google sign-in by clicking Google's hidden button. */
  start (): void
}

/**
 * Loads Google Identity Services when `clientId` is given (google-start.ts),
 * renders Google's button (400 px) into a hidden element, and hands each
 * credential to `onCredential` with the nonce secret of this page
 * (google-nonce.ts), or null where the page could not make one. The visible button is ours;
 * clicking it clicks Google's.
 */
export function useGoogleIdentity (
  clientId: string | null,
  onCredential: (credential: string | null, nonceSecret: string | null) => void
): GoogleIdentity {
  const [services, setServices] = useState<GoogleIdentityServices | null>(null)
  const hiddenButtonRef = useRef<HTMLDivElement | null>(null)
  const onCredentialRef = useRef(onCredential)
  onCredentialRef.current = onCredential

  useEffect(() => {
    if (clientId === null) return
    let cancelled = false
    // The loading and the nonce are a chunk of their own (google-start.ts), fetched only where Google is offered.
    loadChunk(() => import('./google-start.js'))
      .then(({ startGoogleIdentity }) => startGoogleIdentity(clientId, (credential, nonceSecret) => onCredentialRef.current(credential, nonceSecret),
        () => hiddenButtonRef.current, () => cancelled))
      .then((loaded) => { if (loaded !== null) setServices(loaded) }, () => {
        // Blocked or offline: the Google button stays disabled; the other methods still work.
      })
    return () => { cancelled = true }
  }, [clientId])

  return {
    ready: services !== null,
    hiddenButtonRef,
    start () {
      const googleButton = hiddenButtonRef.current?.querySelector<HTMLElement>('[role="button"]')
      if (googleButton != null) googleButton.click()
      else services?.prompt()
    }
  }
}
