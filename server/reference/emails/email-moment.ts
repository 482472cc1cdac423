import type { EmailMessages } from './email-messages.js'

/**
 * When something happened, as the email's language writes a date and a time
 * (Intl: `26 novembre 2026 à 08:30 UTC`, `2026年11月26日 8:30 UTC`), in UTC,
 * which the text names: the server cannot know the reader's time zone. In
 * the language's own calendar where it has one (Persian's Solar Hijri, Thai's
 * Buddhist era), as its readers date things.
 */
export function momentIn (messages: EmailMessages, at: Date): string {
  const date = new Intl.DateTimeFormat(messages.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(at)
  const time = new Intl.DateTimeFormat(messages.locale, { timeStyle: 'short', timeZone: 'UTC' }).format(at)
  return messages.text('newBrowser.when', { date, time })
}
