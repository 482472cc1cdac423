import { useEffect, useRef, useState, type RefObject } from 'react'
import { GOOGLE_BUTTON_WIDTH_PX } from '../lib/constants.js'
import { loadGoogleIdentityServices, type GoogleIdentityServices } from '../lib/google-identity-services.js'

export interface GoogleIdentity {
  /** The Google button stays disabled until Google's script has loaded (spec §4). */
  readonly ready: boolean
  /** Where Google's own button is rendered, hidden. */
  readonly hiddenButtonRef: RefObject<HTMLDivElement | null>
  /** Starts Google sign-in by clicking Google's hidden button. */
  start (): void
}

/**
 * Loads Google Identity Services when `clientId` is given, renders Google's
 * button (400 px) into a hidden element, and hands each credential to
 * `onCredential`. The visible button is ours; clicking it clicks Google's.
 */
export function useGoogleIdentity (clientId: string | null, onCredential: (credential: string | null) => void): GoogleIdentity {
  const [services, setServices] = useState<GoogleIdentityServices | null>(null)
  const hiddenButtonRef = useRef<HTMLDivElement | null>(null)
  const onCredentialRef = useRef(onCredential)
  onCredentialRef.current = onCredential

  useEffect(() => {
    if (clientId === null) return
    let cancelled = false
    loadGoogleIdentityServices().then((loaded) => {
      if (cancelled) return
      loaded.initialize({
        client_id: clientId,
        callback: (response) => onCredentialRef.current(response.credential ?? null),
        ux_mode: 'popup',
        use_fedcm_for_button: true,
        itp_support: true
      })
      if (hiddenButtonRef.current !== null) {
        loaded.renderButton(hiddenButtonRef.current, { type: 'standard', width: GOOGLE_BUTTON_WIDTH_PX })
      }
      setServices(loaded)
    }, () => {
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
