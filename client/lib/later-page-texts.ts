import { createMessages, MESSAGES_ELEMENT_ID, type Catalogue, type Messages } from '../../common/message-catalogue.js'
import { fetchLaterTexts } from '../api/later-texts.js'
import { parseEmbeddedMessages } from './embedded-messages.js'
import { withLaterTexts } from './messages.js'

let later: Promise<Catalogue | null> | null = null

/**
 * For the lazy parts only (the challenge, the breached-password notice): the
 * later texts (common/message-catalogue.ts LATER_PREFIXES) when the edge left
 * them out of the page, fetched once; null when the page's catalogue holds
 * them (the server renderer's, a test's). Read from the document, as the
 * page's start reads the catalogue, so that no first-load code carries the
 * address for them.
 */
export async function laterPageTexts (): Promise<Catalogue | null> {
  later ??= (async () => {
    const url = parseEmbeddedMessages(embeddedJson()).laterTextsUrl
    return url === undefined ? null : fetchLaterTexts(url)
  })().catch((error: unknown) => {
    // Not kept: the next lazy part tries again.
    later = null
    throw error
  })
  return later
}

/** The page's texts with the later ones, for a part that speaks outside React's tree (the challenge). */
export async function pageTextsWithLater (): Promise<Messages> {
  const messages = createMessages(parseEmbeddedMessages(embeddedJson()))
  const texts = await laterPageTexts()
  return texts === null ? messages : withLaterTexts(messages, texts)
}

const embeddedJson = (): string | undefined => document.getElementById(MESSAGES_ELEMENT_ID)?.textContent ?? undefined
