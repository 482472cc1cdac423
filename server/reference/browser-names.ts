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

export function describeBrowser (userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent === '') return 'an unknown browser'
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1]
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1]
  if (browser === undefined) return system === undefined ? 'an unknown browser' : `a browser on ${system}`
  return system === undefined ? browser : `${browser} on ${system}`
}
