import englishCatalogue from '../../common/messages/en.json' with { type: 'json' }
import {
  createMessages,
  LOCALES,
  serializePageMessages,
  SERVER_ONLY_PREFIX,
  type Catalogue,
  type Locale,
  type MessageKey,
  type Messages,
  type PageMessages
} from '../../common/message-catalogue.js'
import type { MessageOverrides } from './messages-dir.js'

/** The edge's texts in every shipped language, ready to speak and to embed. */
export interface MessageCatalogues {
  /** The texts in `locale`: what the edge says itself (its JSON failures, a refused form post). */
  messages (locale: Locale): Messages
  /** What the page is given in `locale` (for the server renderer): the catalogue without the server-only keys. */
  pageMessages (locale: Locale): PageMessages
  /** The page's `<script id="threshold-messages">` content for `locale`: its catalogue without the server-only keys, serialised once. */
  pageMessagesJson (locale: Locale): string
}

const ENGLISH: Catalogue = englishCatalogue

/**
 * A shipped catalogue, bundled by esbuild (a template import bundles every
 * file of common/messages/); null when that language's file is not there.
 */
async function shippedCatalogue (locale: Locale): Promise<Readonly<Record<string, unknown>> | null> {
  if (locale === 'en') return ENGLISH
  try {
    return (await import(`../../common/messages/${locale}.json`, { with: { type: 'json' } })).default
  } catch {
    return null
  }
}

/**
 * Every key English has, in order: the operator's text (MESSAGES_DIR), else
 * the shipped language's, else English's. A catalogue missing a key is a
 * test failure (test/common/message-catalogues.test.ts), never a blank page.
 */
function completeCatalogue (shipped: Readonly<Record<string, unknown>> | null, override: Partial<Catalogue> | undefined): Catalogue {
  const catalogue: Partial<Record<MessageKey, string>> = {}
  for (const key of Object.keys(ENGLISH) as MessageKey[]) {
    const shippedText = shipped?.[key]
    catalogue[key] = override?.[key] ?? (typeof shippedText === 'string' ? shippedText : ENGLISH[key])
  }
  return catalogue as Catalogue
}

function withoutServerKeys (catalogue: Catalogue): Catalogue {
  return Object.fromEntries(Object.entries(catalogue).filter(([key]) => !key.startsWith(SERVER_ONLY_PREFIX))) as Catalogue
}

/** Loads the shipped catalogues and lays the operator's texts over them, once, at start. */
export async function loadMessageCatalogues (overrides: MessageOverrides): Promise<MessageCatalogues> {
  const byLocale = new Map<Locale, { messages: Messages, page: PageMessages, pageJson: string }>()
  await Promise.all(LOCALES.map(async (locale) => {
    const catalogue = completeCatalogue(await shippedCatalogue(locale), overrides[locale])
    const page: PageMessages = Object.freeze({ locale, catalogue: Object.freeze(withoutServerKeys(catalogue)) })
    byLocale.set(locale, { messages: createMessages({ locale, catalogue }), page, pageJson: serializePageMessages(page) })
  }))
  return {
    messages: (locale) => byLocale.get(locale)!.messages,
    pageMessages: (locale) => byLocale.get(locale)!.page,
    pageMessagesJson: (locale) => byLocale.get(locale)!.pageJson
  }
}
