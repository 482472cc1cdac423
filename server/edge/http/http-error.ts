import englishCatalogue from '../../../common/messages/en.json' with { type: 'json' }
import type { MessageKey, Messages } from '../../../common/languages/message-catalogue.js'
import { formatMessage, type MessageParams } from '../../../common/languages/message-format.js'

/**
 * An error with the HTTP status to answer. Hooks and parsers throw these, and
 * each route group's error handler decides the form of the answer (JSON for
 * the accounts calls, a gRPC-web status for the domain check). What the
 * visitor reads is a catalogue text, said in the request's language
 * (textOf); the error's message is English's, for the logs.
 */
export class HttpError extends Error {
  constructor (readonly statusCode: number, readonly key: MessageKey, readonly params?: MessageParams) {
    super(formatMessage(englishCatalogue[key], params))
    this.name = 'HttpError'
  }
}

/** What an error says to the visitor in `messages`' language: an HttpError's text, else its message as it is (Fastify's own errors). */
export function textOf (error: { readonly message?: string }, messages: Messages): string {
  return error instanceof HttpError ? messages.text(error.key, error.params) : error.message ?? ''
}
