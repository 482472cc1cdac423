/**
 * The page's languages (docs/languages.md): the message catalogues, one JSON
 * file per language in common/messages/, English's keys the reference for
 * every other; the locales they are written for, each with its direction;
 * and how texts are looked up (message-format.ts fills them).
 *
 * Only the chosen language's catalogue reaches the browser: the edge embeds
 * it in the page (MESSAGES_ELEMENT_ID), the page never bundles one. Keys that
 * start with SERVER_ONLY_PREFIX are texts only the edge says (its own answers
 * to the accounts calls, a form it cannot read) and are left out of the page.
 */
import type englishCatalogue from '../messages/en.json'
import { jsonForScriptElement } from '../page/json-for-script.js'
import { formatMessage, type MessageParams } from './message-format.js'

/** Every key of the catalogues, as English has them. */
export type MessageKey = keyof typeof englishCatalogue

/** One language's texts: a text for every key. */
export type Catalogue = Readonly<Record<MessageKey, string>>

/**
 * The languages Threshold ships, English first (the reference every other is
 * checked against), as BCP 47 tags: a region or a script only where one
 * language is written two ways (docs/languages.md lists them).
 */
export const LOCALES = [
  'en', 'de', 'fr', 'es', 'ja', 'ar', 'pt-BR', 'pt-PT', 'it', 'nl', 'pl', 'cs', 'sv', 'da', 'nb', 'fi',
  'ru', 'uk', 'tr', 'el', 'ro', 'hu', 'he', 'fa', 'hi', 'id', 'vi', 'th', 'ko', 'zh-Hans', 'zh-Hant', 'ms'
] as const

/** A language Threshold ships a catalogue for. */
export type ShippedLocale = (typeof LOCALES)[number]

/**
 * The pseudo-locales (docs/languages.md): English accented and made longer,
 * left to right and right to left, for finding texts that are not in the
 * catalogue and layouts that break. Spoken only where PSEUDO_LOCALES is on.
 */
export const PSEUDO_LOCALES = ['en-XA', 'ar-XB'] as const

/** A language the page may speak: a shipped one, or a pseudo-locale where they are on. */
export type Locale = ShippedLocale | (typeof PSEUDO_LOCALES)[number]

/** The languages written right to left: the page's `dir` follows. */
const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set<Locale>(['ar', 'he', 'fa', 'ar-XB'])

/** Whether a locale is a pseudo-locale (PSEUDO_LOCALES). */
export function isPseudoLocale (value: Locale): value is (typeof PSEUDO_LOCALES)[number] {
  return (PSEUDO_LOCALES as readonly string[]).includes(value)
}

/** Whether a string is one of the shipped locales. */
export function isLocale (value: unknown): value is ShippedLocale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value)
}

/** The direction a language is written in, for `<html dir>`. */
export function textDirection (locale: Locale): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr'
}

/** Keys of texts only the edge says; never embedded in the page. */
export const SERVER_ONLY_PREFIX = 'server.'

/** Id of the `<script type="application/json">` element that carries the page's PageMessages. */
export const MESSAGES_ELEMENT_ID = 'threshold-messages'

/** What the page is given: its language and that language's catalogue (without the server-only keys). */
export interface PageMessages {
  readonly locale: Locale
  readonly catalogue: Catalogue
  /**
   * Where the texts of the lazily loaded parts are (LATER_PREFIXES), when the
   * edge left them out of the page: a content-hashed `/assets/messages/…`
   * JSON object of those keys, fetched with the chunk that shows them. Absent
   * when the catalogue holds them (the server renderer's, a code step's page).
   */
  readonly laterTextsUrl?: string
}

/**
 * Keys the page's scripts never show, left out of the embedded catalogue (the
 * first-load budget, test/build/bundle-budget.integration.test.ts): the
 * `<title>`, the meta description and the notes shown without scripts are the
 * server renderer's alone.
 */
export const SERVER_RENDERED_ONLY_PREFIXES: readonly string[] = ['page.title', 'page.description', 'noScript.']

/**
 * The texts of the `notice` codes emailed links land on (common/page/page-notices.ts):
 * a page carries only the one its address names.
 */
export const ADDRESS_NOTICE_PREFIX = 'notice.'

/**
 * Keys only a lazily loaded chunk shows (the second factor's steps, the
 * challenge's, the breached-password notice, the SSO modal, the passkey
 * offer, the signed-in state, "Confirm it's you" before a change, "Sign out of all other
 * sessions" after one, the list a completed reset shows, the account
 * view, a chunk of its own, the social connections' buttons and SSO found by the address): a plain page
 * leaves them out and names where they are (PageMessages.laterTextsUrl).
 * `sso.continue` stays: the no-script SSO form says it; `login.withPasskey`
 * is the login view's.
 */
export const LATER_PREFIXES: readonly string[] = [
  'account.', 'heading.account', 'secondFactor.', 'browserCheck.', 'breachedPassword.', 'freshProof.', 'otherSessions.', 'recentFactors.', 'signedIn.',
  'sso.title', 'sso.cancel', 'sso.submit', 'passkey.offer', 'passkey.create', 'passkey.notNow', 'emailCode.', 'lastUsed.', 'social.', 'ssoDiscovery.'
]

/**
 * Texts of the views a page only opens on, never switched to in the page:
 * the set-password view (from an emailed link) and the account view (from
 * its address, which the edge fills). A page that opens on another view
 * leaves them out (the first-load budget, test/build/bundle-budget.integration.test.ts).
 */
export const OPENING_VIEW_KEYS: readonly string[] = ['heading.setPassword', 'field.newPassword', 'field.showNewPassword', 'field.hideNewPassword', 'setPassword.submit']

/** The views a page only opens on, whose texts are OPENING_VIEW_KEYS. */
export const OPENING_VIEWS: readonly string[] = ['setPassword', 'account']

/** Whether a key starts with one of the prefixes. */
export function hasPrefix (key: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => key.startsWith(prefix))
}

/** Looks texts up in one catalogue: what components and the edge call to say something. */
export interface Messages {
  readonly locale: Locale
  readonly dir: 'ltr' | 'rtl'
  text: (key: MessageKey, params?: MessageParams) => string
}

/** Messages over a catalogue; a key the catalogue lacks shows as the key itself (a test keeps every catalogue whole). */
export function createMessages ({ locale, catalogue }: PageMessages): Messages {
  return {
    locale,
    dir: textDirection(locale),
    text (key, params) {
      const text = Object.hasOwn(catalogue, key) ? catalogue[key] : key
      return params === undefined ? text : formatMessage(text, params, locale)
    }
  }
}

/** PageMessages as the JSON of the page's `<script type="application/json">` element (json-for-script.ts says what is escaped). */
export function serializePageMessages (messages: PageMessages): string {
  return jsonForScriptElement(messages)
}
