import type { FastifyRequest } from 'fastify'
import type { Locale, Messages } from '../../../common/languages/message-catalogue.js'
import { chooseLocale, uiLocalesOf } from '../../shared/languages/locale-choice.js'
import type { MessageCatalogues } from './message-catalogues.js'

/**
 * The texts the edge answers a request in. A JSON call's language is its
 * Accept-Language, which the page sets to its own language (client/http/post-json.ts);
 * a form post's also follows the posted page's address (`pageQuery`, its
 * `ui_locales`), as the page itself did.
 */
export type MessagesFor = (request: FastifyRequest, pageQuery?: string) => Messages

declare module 'fastify' {
  interface FastifyInstance {
    /** The texts the edge answers `request` in (request-messages.ts). */
    messagesFor: MessagesFor
  }
}

/** MessagesFor over the loaded catalogues and DEFAULT_LOCALE. */
export function messagesForRequests (catalogues: MessageCatalogues, defaultLocale: Locale): MessagesFor {
  return (request, pageQuery) => catalogues.messages(chooseLocale({
    uiLocales: pageQuery === undefined ? null : uiLocalesOf(pageQuery),
    acceptLanguage: request.headers['accept-language'],
    defaultLocale,
    pseudoLocales: catalogues.pseudoLocales
  }))
}
