import { startTransition, useEffect, useState } from 'react'
import { lazyChunk } from '../page/load-chunk.js'

/**
 * The method this browser signed in with last (docs/page.md, "The method used
 * last"): in localStorage only, the method and never the address, so that a
 * visitor who comes back picks the same way in rather than making a second
 * account. Storage that refuses (private modes, blocked site data) means no
 * mark, never an error.
 */
export type LastUsedMethod = 'password' | 'passkey' | 'google' | 'sso' | 'email-code' | `social:${string}`

/** The localStorage key (a public name: docs/page.md). */
const LAST_USED_KEY = 'threshold:last-sign-in-method'

/** Reads, writes (a method) or forgets (null) the mark; whatever storage refuses is no mark. */
function stored (method?: LastUsedMethod | null): string | null {
  try {
    if (method === undefined) return localStorage.getItem(LAST_USED_KEY)
    if (method === null) localStorage.removeItem(LAST_USED_KEY)
    else localStorage.setItem(LAST_USED_KEY, method)
  } catch {
    // Storage refused: no mark, and nothing else changes.
  }
  return null
}

/** Writes the method of a sign-in that completed. */
export const rememberLastUsed = (method: LastUsedMethod): unknown => stored(method)

/**
 * The mark, read after hydration only: the server's HTML never has it (it
 * cannot know it), so the first render matches the server's, and without
 * scripts nothing changes. A value that is no method marks nothing (no
 * button has its name). `forget` drops it for good. Read as a transition:
 * an urgent update would reach a lazy view still waiting for its chunk
 * (the account view, the register view), which React would then render
 * afresh, without the server's markup or what the visitor typed into it.
 */
export function useLastUsedMethod (): { readonly method: LastUsedMethod | null, readonly forget: () => void } {
  const [method, setMethod] = useState<LastUsedMethod | null>(null)
  useEffect(() => startTransition(() => setMethod(stored() as LastUsedMethod | null)), [])
  return { method, forget: () => setMethod(stored(null) as null) }
}

/** The "Last used" tag with its dismiss button: a chunk of its own with its texts (later texts), shown only after hydration. */
export const LastUsedTag = lazyChunk(async () => (await import('./LastUsedTag.js')).withItsTexts())
