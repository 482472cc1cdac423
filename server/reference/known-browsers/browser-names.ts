/**
 * A browser's name for the "was this you?" email, read from its User-Agent:
 * "Firefox on Windows". A dozen patterns cover what visitors use; a parsing
 * library would weigh more than the one line of email it fills. The result
 * is only ever shown to the account's owner, never trusted.
 */

const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari']
]

const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux']
]

/** The browser and system a User-Agent names (proper nouns, the same in every language); undefined where it names none we know. */
export interface BrowserIdentity {
  readonly browser: string | undefined
  readonly system: string | undefined
}

export function identifyBrowser (userAgent: string | undefined): BrowserIdentity {
  if (userAgent === undefined || userAgent === '') return { browser: undefined, system: undefined }
  return {
    browser: BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1],
    system: SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1]
  }
}

/** The words around the names, in one language (the emails' `browser.*` texts). */
export interface BrowserWords {
  onSystem (browser: string, system: string): string
  anyOnSystem (system: string): string
  readonly unknown: string
}

const ENGLISH_WORDS: BrowserWords = {
  onSystem: (browser, system) => `${browser} on ${system}`,
  anyOnSystem: (system) => `a browser on ${system}`,
  unknown: 'an unknown browser'
}

/** "Firefox on Windows", "a browser on Linux", "an unknown browser", with `words` in one language. */
export function nameBrowser ({ browser, system }: BrowserIdentity, words: BrowserWords): string {
  if (browser === undefined) return system === undefined ? words.unknown : words.anyOnSystem(system)
  return system === undefined ? browser : words.onSystem(browser, system)
}

/** A User-Agent's browser named in English (a new passkey's label). */
export function describeBrowser (userAgent: string | undefined): string {
  return nameBrowser(identifyBrowser(userAgent), ENGLISH_WORDS)
}
