import { GOOGLE_BUTTON_WIDTH_PX } from '../components/constants.js'
import type { GoogleIdentityServices } from './google-identity-services.js'
import { newGoogleNonce } from './google-nonce.js'

// A chunk of its own (the first-load budget, test/build/bundle-budget.integration.test.ts): only a
// page that offers Google loads it, while Google's own script, which it loads, is fetched. What the
// page does with a credential rides in it too: Google hands one back only once this chunk has run.

export { takeGoogleCredential } from './google-outcome.js'

/** The one place Google Identity Services' script is loaded from: Google's own servers. */
const GOOGLE_CLIENT_SCRIPT_URL = 'https://accounts.google.com/gsi/client'

let loading: Promise<GoogleIdentityServices> | null = null

/** Loads Google's client script once; resolves with its `google.accounts.id`. */
function loadGoogleIdentityServices (): Promise<GoogleIdentityServices> {
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

/**
 * Loads Google Identity Services, initialises it for `clientId` with this
 * page's nonce (google-nonce.ts), renders Google's button (400 px) into
 * `buttonHost` (hidden), and resolves with the services once they are ready;
 * null when the page asked no more (`cancelled`). Each credential goes to
 * `onCredential` with the nonce's secret, or null where the page could not
 * make one. Rejects when Google's script is blocked or offline.
 */
export async function startGoogleIdentity (
  clientId: string,
  onCredential: (credential: string | null, nonceSecret: string | null) => void,
  buttonHost: () => HTMLElement | null,
  cancelled: () => boolean
): Promise<GoogleIdentityServices | null> {
  const [loaded, nonce] = await Promise.all([loadGoogleIdentityServices(), newGoogleNonce()])
  if (cancelled()) return null
  loaded.initialize({
    client_id: clientId,
    callback: (response) => onCredential(response.credential ?? null, nonce?.secret ?? null),
    ...(nonce === null ? {} : { nonce: nonce.nonce }),
    ux_mode: 'popup',
    use_fedcm_for_button: true,
    itp_support: true
  })
  const host = buttonHost()
  if (host !== null) loaded.renderButton(host, { type: 'standard', width: GOOGLE_BUTTON_WIDTH_PX })
  return loaded
}
