import { LOCALES, PSEUDO_LOCALES, type Locale, type ShippedLocale } from '../../../common/languages/message-catalogue.js'

/**
 * How much of `ui_locales` or `Accept-Language` is read. Browsers send a
 * handful of tags in well under 100 characters; anything past this is
 * ignored, so a 100 KB header costs what a normal one does.
 */
const MAX_LANGUAGE_INPUT_CHARS = 256
/** How many tags of either are looked at, for the same reason. */
const MAX_LANGUAGE_TAGS = 16

/** BCP 47's shape, loosely: a 1-8 letter primary subtag, then 1-8 letters or digits per subtag. Anything else is not a tag. */
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/
/** Accept-Language's weight: `q=` and 0 to 1 with up to three decimals (RFC 9110, 12.4.2). */
const QUALITY = /^q=(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i

/** What the language is chosen from: the query's `ui_locales` (decoded), the request's Accept-Language, the operator's DEFAULT_LOCALE. */
export interface LocaleChoiceInput {
  readonly uiLocales?: string | null
  readonly acceptLanguage?: string | readonly string[] | null
  readonly defaultLocale: Locale
  /** Whether the pseudo-locales are spoken (PSEUDO_LOCALES): `en-XA` and `ar-XB` are then chosen as a shipped tag is. */
  readonly pseudoLocales?: boolean
}

/** Shipped locales by their lower-case tag, for a case-blind exact match (`PT-br` → pt-BR). */
const BY_LOWER_CASE: ReadonlyMap<string, ShippedLocale> = new Map(LOCALES.map((locale) => [locale.toLowerCase(), locale]))

/** The pseudo-locales by their lower-case tag: only an exact tag asks for one. */
const PSEUDO_BY_LOWER_CASE: ReadonlyMap<string, Locale> = new Map(PSEUDO_LOCALES.map((locale) => [locale.toLowerCase(), locale]))

/**
 * Languages written two ways, and old or sibling codes: what a tag's primary
 * subtag stands for when the tag itself is not shipped. Chinese (and `cmn`,
 * Mandarin) goes by script, else by region (Taiwan, Hong Kong and Macao write
 * Traditional; Cantonese, `yue`, is written in Traditional characters);
 * Portuguese is Brazil's unless another region is named (CLDR's pt-PT is the
 * parent of Africa's and Asia's); Norwegian and Nynorsk readers read Bokmål;
 * `iw` and `in` are Hebrew's and Indonesian's codes before 1989.
 */
function regionalLocaleOf (primary: string, script: string | undefined, region: string | undefined): ShippedLocale | null {
  switch (primary) {
    case 'zh': case 'cmn':
      if (script !== undefined) return script === 'hant' ? 'zh-Hant' : 'zh-Hans'
      return region === 'tw' || region === 'hk' || region === 'mo' ? 'zh-Hant' : 'zh-Hans'
    case 'pt':
      return region === undefined || region === 'br' ? 'pt-BR' : 'pt-PT'
    case 'yue':
      return 'zh-Hant'
    case 'no': case 'nn':
      return 'nb'
    case 'iw':
      return 'he'
    case 'in':
      return 'id'
    default:
      return BY_LOWER_CASE.get(primary) ?? null
  }
}

/**
 * The shipped locale a language tag asks for (docs/languages.md): the tag
 * itself, else its language's (`de-CH` → de, `zh-TW` → zh-Hant, `pt` →
 * pt-BR, `no` → nb); null for none.
 */
export function supportedLocaleOf (tag: string): ShippedLocale | null {
  if (!LANGUAGE_TAG.test(tag)) return null
  const lower = tag.toLowerCase()
  const exact = BY_LOWER_CASE.get(lower)
  if (exact !== undefined) return exact
  const [primary, ...rest] = lower.split('-')
  // BCP 47: language, then a 4-letter script, then a region (2 letters or 3 digits), before any 1-letter extension (`-u-ca-…`).
  const singleton = rest.findIndex((subtag) => subtag.length === 1)
  const subtags = singleton < 0 ? rest : rest.slice(0, singleton)
  const script = subtags.find((subtag) => /^[a-z]{4}$/.test(subtag))
  const region = subtags.find((subtag) => /^(?:[a-z]{2}|\d{3})$/.test(subtag))
  return regionalLocaleOf(primary!, script, region)
}

/** What a tag asks for where the pseudo-locales may be spoken too. */
function spokenLocaleOf (tag: string, pseudoLocales: boolean): Locale | null {
  return (pseudoLocales ? PSEUDO_BY_LOWER_CASE.get(tag.toLowerCase()) : undefined) ?? supportedLocaleOf(tag)
}

/** The first supported tag of `ui_locales` (space-separated, in the visitor's order of preference). */
function fromUiLocales (uiLocales: string, pseudoLocales: boolean): Locale | null {
  const tags = uiLocales.slice(0, MAX_LANGUAGE_INPUT_CHARS).split(/\s+/, MAX_LANGUAGE_TAGS)
  for (const tag of tags) {
    const locale = spokenLocaleOf(tag, pseudoLocales)
    if (locale !== null) return locale
  }
  return null
}

/**
 * The best supported entry of an Accept-Language header: by weight, then in
 * the header's order; `q=0` means "not this one"; `*` stands, at its weight,
 * for the languages not otherwise listed (RFC 9110, 12.5.4): the default
 * locale unless the header refused it with `q=0`, else the first shipped
 * locale it did not refuse. An entry that is not a tag, or has a malformed
 * weight, is skipped.
 */
function fromAcceptLanguage (header: string, defaultLocale: Locale, pseudoLocales: boolean): Locale | null {
  const entries: Array<{ tag: string, quality: number }> = []
  for (const entry of header.slice(0, MAX_LANGUAGE_INPUT_CHARS).split(',', MAX_LANGUAGE_TAGS)) {
    const [rawTag, ...parameters] = entry.split(';')
    const tag = rawTag!.trim()
    let quality = 1
    if (parameters.length > 1) continue
    if (parameters.length === 1) {
      const weight = parameters[0]!.trim()
      if (!QUALITY.test(weight)) continue
      quality = Number(weight.slice(2))
    }
    entries.push({ tag, quality })
  }
  // Refusals count wherever they stand in the header, before or after `*`.
  const refused = new Set(entries.filter(({ tag, quality }) => quality === 0 && tag !== '*').map(({ tag }) => spokenLocaleOf(tag, pseudoLocales)))
  const unlisted = refused.has(defaultLocale) ? (LOCALES.find((locale) => !refused.has(locale)) ?? null) : defaultLocale
  let best: Locale | null = null
  let bestQuality = 0
  for (const { tag, quality } of entries) {
    if (quality <= bestQuality) continue
    const locale = tag === '*' ? unlisted : spokenLocaleOf(tag, pseudoLocales)
    if (locale === null) continue
    best = locale
    bestQuality = quality
  }
  return best
}

/**
 * The page's language for one request (docs/languages.md): the first
 * supported tag of `ui_locales`, else Accept-Language's best supported one,
 * else DEFAULT_LOCALE. Garbage is ignored quietly, never an error: the visitor
 * still gets a page, in the default language.
 */
export function chooseLocale ({ uiLocales, acceptLanguage, defaultLocale, pseudoLocales = false }: LocaleChoiceInput): Locale {
  if (typeof uiLocales === 'string' && uiLocales !== '') {
    const chosen = fromUiLocales(uiLocales, pseudoLocales)
    if (chosen !== null) return chosen
  }
  // Node joins repeated Accept-Language headers with ', '; an array comes only from a hand-built request.
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : acceptLanguage
  if (typeof header === 'string' && header !== '') {
    const chosen = fromAcceptLanguage(header, defaultLocale, pseudoLocales)
    if (chosen !== null) return chosen
  }
  return defaultLocale
}

/**
 * The `ui_locales` parameter of a query (without `?`), decoded; null when
 * there is none. Most queries have none, and are not parsed at all.
 */
export function uiLocalesOf (query: string): string | null {
  if (!query.includes('ui_locales')) return null
  return new URLSearchParams(query).get('ui_locales')
}
