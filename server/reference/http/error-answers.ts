import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { requestLocale } from './answers.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { PasswordWorkRefused } from '../passwords/hash-gate.js'
import { isStoreUnavailable } from '../store/store-unavailable.js'

/** What a visitor reads for the request errors Fastify itself raises. */
const READABLE_REQUEST_ERRORS: Readonly<Record<string, AnswerKey>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'request.invalidJson',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request.emptyBody',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request.bodyTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'request.notJson',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'request.lengthMismatch'
}

/** A password check refused by the hash gate (server/reference/passwords/hash-gate.ts), or a call made while the store is unreachable: the page shows its text. */
const SERVICE_BUSY: AnswerKey = 'failure.busy'

/**
 * Retry-After of a call that failed for want of the store: PostgreSQL
 * restarts in seconds, and a visitor is asked to try again "in a few seconds".
 */
export const STORE_RETRY_AFTER_SECONDS = 5

/**
 * Answers every error of the plugin's routes as the page reads them,
 * `{"error": "<readable text>"}`, instead of Fastify's own shape: a 4xx says
 * what was wrong with the request, a 5xx never shows its cause (a database
 * message, a path) and is logged instead. A password check the hash gate
 * refused, and a call made while the store cannot be reached (a database
 * restarting), answer 503 with Retry-After: the call may be made again.
 */
export function answerErrorsAsJson (app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const busy = (retryAfterSeconds: number): FastifyReply =>
      reply.code(503).header('cache-control', 'no-store').header('retry-after', String(retryAfterSeconds))
        .send({ error: say({ locale: requestLocale(request) }, SERVICE_BUSY) })
    if (error instanceof PasswordWorkRefused) {
      // Expected under load, and one per request of a burst: a line without a stack.
      request.log.info({ reason: error.reason }, 'password check refused by the hash gate')
      return busy(error.retryAfterSeconds)
    }
    if (isStoreUnavailable(error)) {
      // The cause is logged once per outage where the store sees it (server/reference/services.ts); here a line without a stack.
      request.log.info({ reason: 'store unavailable', code: (error as { code?: unknown }).code ?? null }, 'call failed: the store cannot be reached')
      return busy(STORE_RETRY_AFTER_SECONDS)
    }
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    const facts = { locale: requestLocale(request) }
    let message = say(facts, 'failure.server')
    if (status === 500) request.log.error({ err: error }, 'request failed')
    // Fastify's own messages are for developers; errors raised by our code and plugins (a rate limit) are written for visitors, in their language.
    else message = typeof error.code === 'string' && error.code.startsWith('FST_') ? say(facts, READABLE_REQUEST_ERRORS[error.code] ?? 'request.unreadable') : error.message
    return reply.code(status).header('cache-control', 'no-store').send({ error: message })
  })
}

/** Unknown paths answer 404 `{"error": "Not found."}`. */
export function answerNotFoundAsJson (app: FastifyInstance): void {
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).header('cache-control', 'no-store').send({ error: say({ locale: requestLocale(request) }, 'request.notFound') }))
}
