/**
 * `Accept-Language` for the page's own calls: the language the edge chose
 * for the page (`<html lang>`), so that the edge's answers and the backend's
 * texts and emails are in the visitor's language even when it came from
 * `ui_locales` rather than the browser's settings. Empty when the page has no
 * language (a test's bare document): the browser's own header then goes.
 */
export function pageLanguageHeaders (): Record<string, string> {
  const lang = typeof document === 'undefined' ? '' : document.documentElement.lang
  return lang === '' ? {} : { 'accept-language': lang }
}
