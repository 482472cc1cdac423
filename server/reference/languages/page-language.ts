import type { Locale } from '../../../common/languages/message-catalogue.js'

/**
 * A page address the service sends a visitor to (a link in an email, the end
 * of an emailed link, the return from single sign-on) with `ui_locales` set to
 * the language the visitor was being answered in: the page opened from a
 * German email, or back from a German visitor's identity provider, is German,
 * whatever the browser's own language (docs/languages.md).
 */
export function inPageLanguage (url: string, locale: Locale): string {
  return `${url}${url.includes('?') ? '&' : '?'}ui_locales=${locale}`
}
