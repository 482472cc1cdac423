import { createContext, useContext } from 'react'
import type { Refusal } from '../../common/http/accounts-answers.js'
import { createMessages, type Catalogue, type Messages } from '../../common/languages/message-catalogue.js'
import { formatMessage } from '../../common/languages/message-format.js'
import { ERROR_MESSAGE_KEYS, isErrorKey } from '../../common/languages/error-messages.js'
import { BUSY_MESSAGE_KEY, plainText } from '../../common/languages/page-texts.js'

/** Kept in common/ since the edge makes outside text fit to show too. */
export { plainText }

/**
 * The page's texts (docs/languages.md): the chosen language's catalogue, which
 * the edge embeds in the page (client/languages/embedded-messages.ts reads it) and
 * the server renderer is given per request. Without a provider, an empty
 * catalogue: every text shows as its key, which a test would notice at once.
 */
export const MessagesContext = createContext<Messages>(createMessages({ locale: 'en', catalogue: {} as Catalogue }))

/** The texts in the page's language: `useMessages().text('heading.login')`. */
export function useMessages (): Messages {
  return useContext(MessagesContext)
}

/** The page's texts with a lazy part's later texts (client/languages/later-texts.ts) laid over them. */
export function withLaterTexts (messages: Messages, later: Catalogue): Messages {
  return {
    ...messages,
    text: (key, params) => !Object.hasOwn(later, key)
      ? messages.text(key, params)
      : params === undefined ? later[key] : formatMessage(later[key], params, messages.locale)
  }
}

/** The message for the `error` parameter: a catalogue entry in the page's language, or the value itself as plain text. */
export function messageForErrorParameter (value: string, messages: Messages): string {
  return isErrorKey(value) ? messages.text(ERROR_MESSAGE_KEYS[value]) : plainText(value)
}

/** What a refusal says in the page's language: the service's own text as it came, or the page's busy text for a busy service that sent none. */
export function refusalText (refusal: Refusal, messages: Messages): string {
  return refusal.busy === true ? messages.text(BUSY_MESSAGE_KEY) : refusal.message
}
