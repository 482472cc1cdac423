import type { Catalogue, Locale, PageMessages } from '../../common/languages/message-catalogue.js'

/** What the page speaks when the edge embedded no readable catalogue: English's tag, and no texts (keys show). */
const UNREADABLE: PageMessages = { locale: 'en', catalogue: {} as Catalogue }

/**
 * The PageMessages the edge embedded (MESSAGES_ELEMENT_ID), read without
 * trusting them: a missing or malformed element gives an empty catalogue, so
 * the page still starts and every text shows as its key (a broken deployment
 * that is visible, not a blank page); a locale not shaped like a tag reads as `en`; only
 * string texts are kept.
 */
export function parseEmbeddedMessages (text: string | null | undefined): PageMessages {
  let parsed: unknown
  try {
    parsed = JSON.parse(text ?? '')
  } catch {
    return UNREADABLE
  }
  if (parsed === null || typeof parsed !== 'object') return UNREADABLE
  const { locale, catalogue, laterTextsUrl } = parsed as Record<string, unknown>
  const texts = textsOf(catalogue)
  if (texts === null) return UNREADABLE
  return {
    locale: typeof locale === 'string' && EDGE_LOCALE_TAG.test(locale) ? locale as Locale : 'en',
    catalogue: texts,
    // Only a path on the page's own origin, under the edge's assets, is ever fetched.
    ...(typeof laterTextsUrl === 'string' && LATER_TEXTS_PATH.test(laterTextsUrl) ? { laterTextsUrl } : {})
  }
}

/**
 * A language tag as the edge writes one (`de`, `pt-BR`, `zh-Hant`): checked by
 * its shape rather than against the list of shipped languages, which the
 * first load need not carry; Intl takes any such tag.
 */
const EDGE_LOCALE_TAG = /^[a-z]{2,3}(?:-(?:[A-Z]{2}|[A-Z][a-z]{3}))?$/

/** Where the edge serves a language's later texts (server/edge/languages/message-catalogues.ts). */
const LATER_TEXTS_PATH = /^\/assets\/messages\/[a-z]{2}-[A-Za-z0-9_-]+\.json$/

/** The string texts of a parsed JSON object; null when it is not one. */
export function textsOf (catalogue: unknown): Catalogue | null {
  if (catalogue === null || typeof catalogue !== 'object' || Array.isArray(catalogue)) return null
  return Object.fromEntries(Object.entries(catalogue).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) as Catalogue
}
