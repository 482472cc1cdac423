import { createHash } from 'node:crypto'
import englishCatalogue from '../../../common/messages/en.json' with { type: 'json' }
import {
  ADDRESS_NOTICE_PREFIX,
  createMessages,
  hasPrefix,
  LATER_PREFIXES,
  LOCALES,
  OPENING_VIEW_KEYS,
  isPseudoLocale,
  PSEUDO_LOCALES,
  serializePageMessages,
  SERVER_ONLY_PREFIX,
  SERVER_RENDERED_ONLY_PREFIXES,
  type Catalogue,
  type Locale,
  type ShippedLocale,
  type MessageKey,
  type Messages,
  type PageMessages
} from '../../../common/languages/message-catalogue.js'
import { NOTICE_MESSAGE_KEYS, type PageNotice } from '../../../common/page/page-notices.js'
import type { MessageOverrides } from './messages-dir.js'
import { pseudoCatalogue } from './pseudo-locales.js'
import type { ExtraAsset } from '../page/static-files.js'

/** The edge's texts in every shipped language, ready to speak and to embed. */
export interface MessageCatalogues {
  /** The texts in `locale`: what the edge says itself (its JSON failures, a refused form post). */
  messages (locale: Locale): Messages
  /** What the page is given in `locale` (for the server renderer): the catalogue without the server-only keys. */
  pageMessages (locale: Locale): PageMessages
  /**
   * The page's `<script id="threshold-messages">` content for `locale`, serialised once: the texts the
   * page's scripts can show at first (no server-only, server-rendered-only or later keys) and where the
   * later ones are; with `withLaterTexts` (a page that opens on a second-factor step), those too.
   */
  pageMessagesJson (locale: Locale, embedded: EmbeddedTexts): string
  /** Each language's later texts (LATER_PREFIXES), served as immutable assets under /assets/messages/. */
  readonly laterTextAssets: readonly ExtraAsset[]
  /** Whether the pseudo-locales are among them (PSEUDO_LOCALES is on): a request may then ask for one. */
  readonly pseudoLocales: boolean
}

/** What a page's embedded texts hold beyond the first load's. */
export interface EmbeddedTexts {
  /** The later texts too (LATER_PREFIXES): a page that opens on a code step (the second factor's, an emailed code's). */
  readonly withLaterTexts: boolean
  /** The text of the notice the page's address names, on its view (common/page/page-notices.ts). */
  readonly notice: PageNotice | null
  /** The texts of the views a page only opens on (OPENING_VIEW_KEYS): a page that opens on one of them. */
  readonly openingView: boolean
}

const ENGLISH: Catalogue = englishCatalogue

/**
 * A shipped catalogue, bundled by esbuild (a template import bundles every
 * file of common/messages/); null when that language's file is not there.
 */
async function shippedCatalogue (locale: ShippedLocale): Promise<Readonly<Record<string, unknown>> | null> {
  if (locale === 'en') return ENGLISH
  try {
    const shipped = await import(`../../../common/messages/${locale}.json`, { with: { type: 'json' } }) as { default: Readonly<Record<string, unknown>> }
    return shipped.default
  } catch {
    return null
  }
}

/**
 * Every key English has, in order: the operator's text (MESSAGES_DIR), else
 * the shipped language's, else English's. A catalogue missing a key is a
 * test failure (test/common/languages/message-catalogues.test.ts), never a blank page.
 */
function completeCatalogue (shipped: Readonly<Record<string, unknown>> | null, override: Partial<Catalogue> | undefined): Catalogue {
  const catalogue: Partial<Record<MessageKey, string>> = {}
  for (const key of Object.keys(ENGLISH) as MessageKey[]) {
    const shippedText = shipped?.[key]
    catalogue[key] = override?.[key] ?? (typeof shippedText === 'string' ? shippedText : ENGLISH[key])
  }
  return catalogue as Catalogue
}

function withoutKeys (catalogue: Catalogue, keys: readonly string[]): Catalogue {
  return Object.fromEntries(Object.entries(catalogue).filter(([key]) => !keys.includes(key))) as Catalogue
}

function withoutServerKeys (catalogue: Catalogue): Catalogue {
  return Object.fromEntries(Object.entries(catalogue).filter(([key]) => !key.startsWith(SERVER_ONLY_PREFIX))) as Catalogue
}

/** The first 10 characters of the SHA-256 (base64url), as build.mjs names the client's assets. */
function contentHash (text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 10)
}

interface LocaleEntry {
  readonly messages: Messages
  readonly page: PageMessages
  /** By `withLaterTexts`, `openingView`, then notice ('' for none): filled as pages ask (at most 2 × 2 × 11 per language). */
  readonly embeddedJson: Map<string, string>
  readonly firstLoad: PageMessages
  readonly withLater: PageMessages
  readonly laterAsset: ExtraAsset
}

/** Which of the optional ways in this deployment offers: a page never embeds the texts of one it does not. */
export interface OfferedMethods {
  /** GOOGLE_CLIENT_ID is set. */
  readonly google: boolean
}

/** What the edge speaks beyond the shipped languages. */
export interface SpokenLanguages {
  /** PSEUDO_LOCALES is on: the pseudo-locales are spoken too, made from English's texts as this deployment has them (MESSAGES_DIR's included). */
  readonly pseudoLocales: boolean
}

/**
 * The Google buttons' labels, embedded only where Google is offered (the
 * first-load budget). Its `error` texts stay: a product may name them in the
 * page's address whatever this deployment offers.
 */
const GOOGLE_BUTTON_KEYS: readonly string[] = ['methods.loginWithGoogle', 'methods.signUpWithGoogle']

/**
 * Loads the shipped catalogues and lays the operator's texts over them, once, at start.
 *
 * The page embeds only what its scripts can show before a lazy chunk loads
 * (the first-load budget, test/build/bundle-budget.integration.test.ts): the second
 * factor's texts are an asset of their own per language, named by the hash of
 * their content (MESSAGES_DIR included), so a browser fetches only its
 * language's, once, and keeps it.
 */
export async function loadMessageCatalogues (overrides: MessageOverrides, offered: OfferedMethods, spoken: SpokenLanguages = { pseudoLocales: false }): Promise<MessageCatalogues> {
  const byLocale = new Map<Locale, LocaleEntry>()
  const locales: readonly Locale[] = spoken.pseudoLocales ? [...LOCALES, ...PSEUDO_LOCALES] : LOCALES
  await Promise.all(locales.map(async (locale) => {
    // A pseudo-locale is English's texts as this deployment says them, made long: an operator sees their own texts' layout.
    const catalogue = isPseudoLocale(locale)
      ? pseudoCatalogue(completeCatalogue(ENGLISH, overrides.en))
      : completeCatalogue(await shippedCatalogue(locale), overrides[locale])
    const pageCatalogue = withoutServerKeys(catalogue)
    const page: PageMessages = Object.freeze({ locale, catalogue: Object.freeze(pageCatalogue) })
    const pick = (keep: (key: string) => boolean): Catalogue =>
      Object.fromEntries(Object.entries(pageCatalogue).filter(([key]) => keep(key))) as Catalogue
    // A notice's text is shown only where the address names it: no other page carries it.
    const scripted = (key: string): boolean => !hasPrefix(key, SERVER_RENDERED_ONLY_PREFIXES) && !key.startsWith(ADDRESS_NOTICE_PREFIX) &&
      (offered.google || !GOOGLE_BUTTON_KEYS.includes(key))
    const laterJson = JSON.stringify(pick((key) => hasPrefix(key, LATER_PREFIXES)))
    const laterName = `messages/${locale}-${contentHash(laterJson)}.json`
    byLocale.set(locale, {
      messages: createMessages({ locale, catalogue }),
      page,
      embeddedJson: new Map(),
      firstLoad: { locale, catalogue: pick((key) => scripted(key) && !hasPrefix(key, LATER_PREFIXES)), laterTextsUrl: `/assets/${laterName}` },
      withLater: { locale, catalogue: pick(scripted) },
      laterAsset: { name: laterName, source: { body: Buffer.from(laterJson) }, headers: {}, compress: true }
    })
  }))
  return {
    messages: (locale) => byLocale.get(locale)!.messages,
    pageMessages: (locale) => byLocale.get(locale)!.page,
    pageMessagesJson (locale, { withLaterTexts, notice, openingView }) {
      const entry = byLocale.get(locale)!
      const key = `${withLaterTexts ? '+' : ''}${openingView ? '=' : ''}${notice ?? ''}`
      let json = entry.embeddedJson.get(key)
      if (json === undefined) {
        const texts = withLaterTexts ? entry.withLater : entry.firstLoad
        const base = openingView ? texts : { ...texts, catalogue: withoutKeys(texts.catalogue, OPENING_VIEW_KEYS) }
        const noticeKey = notice === null ? null : NOTICE_MESSAGE_KEYS[notice]
        json = serializePageMessages(noticeKey === null ? base : { ...base, catalogue: { ...base.catalogue, [noticeKey]: entry.page.catalogue[noticeKey] } })
        entry.embeddedJson.set(key, json)
      }
      return json
    },
    laterTextAssets: locales.map((locale) => byLocale.get(locale)!.laterAsset),
    pseudoLocales: spoken.pseudoLocales
  }
}
