import type { Catalogue } from '../../common/languages/message-catalogue.js'
import { textsOf } from './embedded-messages.js'

/** How many times a failed fetch of the later texts is tried again before the step fails. */
const LATER_TEXTS_RETRIES = 1

/**
 * The later texts (common/languages/message-catalogue.ts LATER_PREFIXES) the edge
 * serves at `url`, an immutable asset the browser keeps. A failed fetch is
 * tried once more; a second failure rejects, so the lazy part that needs the
 * texts fails as a chunk that cannot load does, rather than show its keys or
 * another language (docs/languages.md).
 */
export async function fetchLaterTexts (url: string): Promise<Catalogue> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(url, { credentials: 'same-origin', mode: 'same-origin', redirect: 'error' })
      const texts = response.ok ? textsOf(await response.json()) : null
      if (texts !== null) return texts
    } catch {
      // A network failure, like an unreadable answer, is tried again below.
    }
    if (attempt === LATER_TEXTS_RETRIES) throw new Error(`the page's later texts could not be loaded from ${url}`)
  }
}
