import { LOCALES, PSEUDO_LOCALES, textDirection, type Locale, type ShippedLocale } from '../../../common/languages/message-catalogue.js'
import { formatMessage, type MessageParams } from '../../../common/languages/message-format.js'

/** One family's texts (the emails', the answers') in one language. */
export interface CatalogueTexts<Key extends string> {
  readonly locale: Locale
  readonly dir: 'ltr' | 'rtl'
  text (key: Key, params?: MessageParams): string
}

/** Every shipped language but English, the reference each family is written in first. */
export type TranslatedLocale = Exclude<ShippedLocale, 'en'>

/**
 * The reference service's texts of one family, per language: `english` is
 * the reference, `translations` the other shipped catalogues of the same
 * folder (imported statically, so esbuild bundles them). Built once at
 * import; a lookup is a map read.
 */
export function catalogueFamily<Key extends string> (
  english: Readonly<Record<Key, string>>,
  translations: Readonly<Record<TranslatedLocale, Readonly<Record<string, unknown>>>>
): (locale: Locale) => CatalogueTexts<Key> {
  const byLocale = new Map<Locale, CatalogueTexts<Key>>()
  for (const locale of LOCALES) {
    const shipped: Readonly<Record<string, unknown>> = locale === 'en' ? english : translations[locale]
    byLocale.set(locale, {
      locale,
      dir: textDirection(locale),
      text (key, params) {
        const candidate = shipped[key]
        // A key the language lacks is said in English (the catalogue test keeps them whole).
        return formatMessage(typeof candidate === 'string' ? candidate : english[key], params, locale)
      }
    })
  }
  // The pseudo-locales are the page's and the edge's: the reference service speaks English in them, English's way.
  for (const pseudo of PSEUDO_LOCALES) byLocale.set(pseudo, byLocale.get('en')!)
  return (locale) => byLocale.get(locale)!
}
