/**
 * The part of Google Identity Services' client the page uses, and the one
 * place its script is loaded from (spec §7: Google's own servers).
 */
export const GOOGLE_CLIENT_SCRIPT_URL = 'https://accounts.google.com/gsi/client'

export interface GoogleCredentialResponse {
  readonly credential?: string
}

export interface GoogleIdentityServices {
  initialize (options: {
    client_id: string
    callback: (response: GoogleCredentialResponse) => void
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

let loading: Promise<GoogleIdentityServices> | null = null

/** Loads Google's client script once; resolves with its `google.accounts.id`. */
export function loadGoogleIdentityServices (): Promise<GoogleIdentityServices> {
  loading ??= new Promise<GoogleIdentityServices>((resolve, reject) => {
    const script = document.createElement('script')
    script.src = GOOGLE_CLIENT_SCRIPT_URL
    script.async = true
    script.onload = () => {
      const services = window.google?.accounts?.id
      if (services === undefined) reject(new Error('Google Identity Services did not start'))
      else resolve(services)
    }
    script.onerror = () => reject(new Error('Google Identity Services could not be loaded'))
    document.head.appendChild(script)
  })
  loading.catch(() => { loading = null })
  return loading
}

/** Whether Google sign-in is offered on this host (GOOGLE_CLIENT_ID set, host not disabled). */
export function googleSignInAvailable (clientId: string | null, disabledHostnames: readonly string[], hostname: string): clientId is string {
  return clientId !== null && !disabledHostnames.includes(hostname.toLowerCase())
}
