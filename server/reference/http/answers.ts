import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { Locale } from '../../../common/languages/message-catalogue.js'
import { chooseLocale, uiLocalesOf } from '../../shared/languages/locale-choice.js'
import type { EmailPseudonyms } from '../audit/email-pseudonyms.js'

/** An answer of the service: the HTTP status, the JSON body the page reads, and any cookies to set. */
export interface Answer {
  readonly status: number
  readonly body: Readonly<Record<string, unknown>>
  readonly cookies?: readonly string[]
  /** Further response headers (a 503's Retry-After). */
  readonly headers?: Readonly<Record<string, string>>
}

/** The browser behind a request, for the services that recognise browsers. */
export interface BrowserFacts {
  readonly cookieHeader: string | undefined
  readonly userAgent: string | undefined
}

/** Keeps an event as its account's owner sees it in the account view's activity (server/reference/account/security-events.ts). */
export type ActivitySink = (accountId: string, kind: string, method: string | null) => void

/** Where authentication events are logged (server/reference/audit/audit.ts): the log, and the names addresses have in it. */
export interface AuditTarget {
  readonly log: FastifyBaseLogger
  readonly pseudonyms: EmailPseudonyms
  /** Where the events an owner sees are kept as well; absent where no request is behind them (the operator's command). */
  readonly activity?: ActivitySink
}

/** Whom an email goes to: where it is logged, and the language it is written in. */
export interface EmailAudience extends AuditTarget {
  /** The request's Accept-Language, chosen among the shipped languages (English when none): the page sends its own. */
  readonly locale: Locale
}

export interface RequestFacts extends EmailAudience {
  readonly clientAddress: string
  /** Null where browsers are not recognised (local-network `/authenticate`, called from another origin). */
  readonly browser: BrowserFacts | null
  /** Aborted when the client goes away before its answer (the visitor left, or the edge gave up and closed the connection). */
  readonly signal: AbortSignal
}

export const errorAnswer = (status: number, message: string, extra: Readonly<Record<string, unknown>> = {}): Answer =>
  ({ status, body: { error: message, ...extra } })
export const successAnswer = (message: string): Answer => ({ status: 200, body: { success: message } })

/** A signal aborted when the response's connection closes before the response was sent. */
function clientGoneSignal (reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  const response = reply.raw
  // A response closes once sent, too: only a close before the end means the client went away.
  response.once('close', () => { if (!response.writableFinished) controller.abort() })
  return controller.signal
}

/**
 * The language a request is answered in: its Accept-Language among the
 * shipped languages, English when none fits (the page sends its own).
 */
export function requestLocale (request: FastifyRequest): Locale {
  // An emailed link carries its email's language (server/reference/languages/page-language.ts): it wins over the browser's.
  const query = request.url.indexOf('?')
  return chooseLocale({
    uiLocales: query === -1 ? null : uiLocalesOf(request.url.slice(query + 1)),
    acceptLanguage: request.headers['accept-language'],
    defaultLocale: 'en'
  })
}

export function requestFacts (request: FastifyRequest, reply: FastifyReply, pseudonyms: EmailPseudonyms): RequestFacts {
  return {
    log: request.log,
    pseudonyms,
    clientAddress: request.ip,
    locale: requestLocale(request),
    browser: { cookieHeader: request.headers.cookie, userAgent: request.headers['user-agent'] },
    signal: clientGoneSignal(reply)
  }
}

export function sendAnswer (reply: FastifyReply, answer: Answer): FastifyReply {
  if (answer.cookies !== undefined && answer.cookies.length > 0) void reply.header('set-cookie', [...answer.cookies])
  if (answer.headers !== undefined) void reply.headers(answer.headers)
  return reply.code(answer.status).header('cache-control', 'no-store').send(answer.body)
}

/** A top-level GET's answer: 303 to a page the browser shows, never cached. */
export function sendRedirect (reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('cache-control', 'no-store').header('location', location).send()
}
