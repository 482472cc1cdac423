import { formatMessage, textDirection, type Locale, type MessageParams } from '../../../common/message-catalogue.js'
import englishEmails from './messages/en.json' with { type: 'json' }

/** Every key of the emails' catalogues, as English has them (server/reference/emails/messages/en.json). */
export type EmailMessageKey = keyof typeof englishEmails

/** The emails' texts in one language. */
export interface EmailMessages {
  readonly locale: Locale
  readonly dir: 'ltr' | 'rtl'
  text (key: EmailMessageKey, params?: MessageParams): string
}

const ENGLISH: Readonly<Record<EmailMessageKey, string>> = englishEmails
const loaded = new Map<Locale, Promise<EmailMessages>>()

/**
 * A shipped catalogue, bundled by esbuild (a template import bundles every
 * file of messages/); null when that language's file is not there.
 */
async function shippedCatalogue (locale: Locale): Promise<Readonly<Record<string, unknown>> | null> {
  if (locale === 'en') return ENGLISH
  try {
    return (await import(`./messages/${locale}.json`, { with: { type: 'json' } })).default
  } catch {
    return null
  }
}

async function load (locale: Locale): Promise<EmailMessages> {
  const shipped = await shippedCatalogue(locale)
  return {
    locale,
    dir: textDirection(locale),
    text (key, params) {
      const candidate = shipped?.[key]
      // A key the language lacks is said in English (the catalogue test keeps them whole).
      return formatMessage(typeof candidate === 'string' ? candidate : ENGLISH[key], params)
    }
  }
}

/** The emails' texts in `locale`, loaded once per language. */
export function emailMessages (locale: Locale): Promise<EmailMessages> {
  let messages = loaded.get(locale)
  if (messages === undefined) {
    messages = load(locale)
    loaded.set(locale, messages)
  }
  return messages
}
