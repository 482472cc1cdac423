import { catalogueFamily, type CatalogueTexts } from '../languages/catalogue-family.js'
import arabic from './messages/ar.json' with { type: 'json' }
import german from './messages/de.json' with { type: 'json' }
import englishEmails from './messages/en.json' with { type: 'json' }
import spanish from './messages/es.json' with { type: 'json' }
import french from './messages/fr.json' with { type: 'json' }
import japanese from './messages/ja.json' with { type: 'json' }

/** Every key of the emails' catalogues, as English has them (server/reference/emails/messages/en.json). */
export type EmailMessageKey = keyof typeof englishEmails

/** The emails' texts in one language. */
export type EmailMessages = CatalogueTexts<EmailMessageKey>

/** The emails' texts in `locale` (server/reference/emails/messages/<locale>.json). */
export const emailMessages = catalogueFamily<EmailMessageKey>(englishEmails, { de: german, fr: french, es: spanish, ja: japanese, ar: arabic })
