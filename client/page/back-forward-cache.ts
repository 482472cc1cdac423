import type { Root } from 'react-dom/client'

/** The fields whose values must not come back with a restored page: passwords and codes (an emailed one, a second factor's). */
const SECRET_FIELDS = 'input[type="password"], input[autocomplete="one-time-code"], input[name="code"]'

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
  let root = start()
  addEventListener('pagehide', clearSecretFields)
  addEventListener('pageshow', (event) => {
    if (!event.persisted) return
    // start unmounts the old root and renders the new one in one task (client/start-page.tsx).
    root = root.then(async (previous) => await start(previous))
  })
}
