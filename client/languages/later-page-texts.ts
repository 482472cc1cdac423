import { createElement, type ComponentType } from 'react'
import { createMessages, MESSAGES_ELEMENT_ID, type Catalogue, type Messages } from '../../common/languages/message-catalogue.js'
import { fetchLaterTexts } from './later-texts.js'
import { parseEmbeddedMessages } from './embedded-messages.js'
import { MessagesContext, useMessages, withLaterTexts } from './messages.js'

/** The later texts' address and their fetch, kept for the page's life (a page that names other ones starts over). */
let later: { readonly url: string | undefined, readonly texts: Promise<Catalogue | null> } | null = null

/**
 * For the lazy parts only (the challenge, the breached-password notice): the
 * later texts (common/languages/message-catalogue.ts LATER_PREFIXES) when the edge left
 * them out of the page, fetched once; null when the page's catalogue holds
 * them (the server renderer's, a test's). Read from the document, as the
 * page's start reads the catalogue, so that no first-load code carries the
 * address for them.
 */
export async function laterPageTexts (): Promise<Catalogue | null> {
  const url = parseEmbeddedMessages(embeddedJson()).laterTextsUrl
  if (later === null || later.url !== url) {
    const texts = url === undefined ? Promise.resolve(null) : fetchLaterTexts(url)
    later = { url, texts }
    // A failure is not kept: the next lazy part tries again.
    texts.catch(() => { if (later?.texts === texts) later = null })
  }
  return later.texts
}

/** The page's texts with the later ones, for a part that speaks outside React's tree (the challenge). */
export async function pageTextsWithLater (): Promise<Messages> {
  const messages = createMessages(parseEmbeddedMessages(embeddedJson()))
  const texts = await laterPageTexts()
  return texts === null ? messages : withLaterTexts(messages, texts)
}

/**
 * A lazy part's component as React.lazy takes it, with the later texts laid
 * over the page's once they are here (the SSO modal, the passkey offer).
 * Texts that do not load reject, as a chunk that cannot load does.
 */
export async function withLaterPageTexts<P extends object> (Component: ComponentType<P>): Promise<{ default: ComponentType<P> }> {
  const later = await laterPageTexts()
  if (later === null) return { default: Component }
  return {
    default: function WithLaterTexts (props: P) {
      return createElement(MessagesContext.Provider, { value: withLaterTexts(useMessages(), later) }, createElement(Component, props))
    }
  }
}

const embeddedJson = (): string | undefined => document.getElementById(MESSAGES_ELEMENT_ID)?.textContent ?? undefined
