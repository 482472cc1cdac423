import type { Root } from 'react-dom/client'
import { PAGE_STATE_ELEMENT_ID } from '../../common/page/page-render.js'

/**
 * The fields whose values must not come back with a restored page: passwords (by their purpose too, since
 * "Show password" makes a field `type="text"`: client/components/PasswordField.tsx) and codes (an emailed one, a second factor's).
 */
const SECRET_FIELDS = 'input[type="password"], input[autocomplete="current-password"], input[autocomplete="new-password"], ' +
  'input[autocomplete="one-time-code"], input[name="code"]'

/**
 * Whether the page carries a visitor's own state (a form post's, or the account view's): such a page is answered
 * no-store (server/edge/page/page-caching.ts), which Chromium may restore all the same while no cookie changed.
 * Started afresh, it would read that state again, so it is loaded again instead. The account view is told by its
 * address, so that the first load carries none of common/account/account-state.ts.
 */
function holdsPersonalState (): boolean {
  return document.getElementById(PAGE_STATE_ELEMENT_ID) !== null || new URLSearchParams(location.search).get('view') === 'account'
}

/**
 * Empties every password and code field in the document: the value, and the
 * value attribute, which React keeps equal to a controlled field's value.
 */
function clearSecretFields (): void {
  for (const field of document.querySelectorAll<HTMLInputElement>(SECRET_FIELDS)) {
    field.value = ''
    field.removeAttribute('value')
  }
}

/**
 * Starts the page with `start`, and keeps what the visitor typed out of the
 * back/forward cache: as the page is left, its password and code fields are
 * emptied, so the page held in memory (and shown on Back) holds none; when it
 * comes back from that cache, it starts afresh, from an empty form (not even
 * the email: a Back press on a shared device shows no one's address), and so
 * checks again what may have changed meanwhile (a sign-in in another tab:
 * client/sessions/SignedIn.tsx). The edge lets only the opening views' plain
 * GETs into that cache (server/edge/page/page-caching.ts); docs/security.md,
 * "The back/forward cache", says why. No `unload` handler here or anywhere:
 * one keeps a page out of that cache.
 */
export function startAfreshOnRestore (start: (replacing?: Root | null) => Promise<Root | null>): void {
  // A start that failed leaves the page as the server sent it, and the next restore starts it afresh all the same.
  let root = start().catch(() => null)
  addEventListener('pagehide', clearSecretFields)
  addEventListener('pageshow', (event) => {
    if (!event.persisted) return
    if (holdsPersonalState()) {
      location.reload()
      return
    }
    // start unmounts the old root and renders the new one in one task (client/start-page.tsx).
    root = root.then(async (previous) => await start(previous)).catch(() => null)
  })
}
