import type { Catalogue } from '../../common/languages/message-catalogue.js'
import { loadChunk } from '../page/load-chunk.js'
import { textsOf } from './embedded-messages.js'

/**
 * The later texts (common/languages/message-catalogue.ts LATER_PREFIXES) the edge
 * serves at `url`, an immutable asset the browser keeps. A failed fetch is
 * tried again as a chunk is (loadChunk); a last failure rejects, so the lazy
 * part that needs the texts fails as a chunk that cannot load does, rather
 * than show its keys or another language (docs/languages.md).
 */
export async function fetchLaterTexts (url: string): Promise<Catalogue> {
  return loadChunk(async () => {
    // A network failure rejects here as an unreadable answer does.
    const response = await fetch(url, { credentials: 'same-origin', mode: 'same-origin', redirect: 'error' })
    const texts = response.ok ? textsOf(await response.json()) : null
    if (texts === null) throw new Error(`the page's later texts could not be loaded from ${url}`)
    return texts
  })
}
