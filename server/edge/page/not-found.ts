import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { logFailure } from '../upstream/client-gone.js'
import { textOf } from '../http/http-error.js'
import { NO_STORE, STATIC_SECURITY_HEADERS } from '../http/security-headers.js'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import { escapeHtml } from './page.js'

/** The 404 page in a language (an operator's texts included), written once per language and kept. */
const notFoundPages = new WeakMap<Messages, string>()

// The empty icon keeps browsers from asking for /favicon.ico, which is one more
// 404 (and log line) for every page not found.
function notFoundPage (messages: Messages): string {
  let page = notFoundPages.get(messages)
  if (page === undefined) {
    const title = escapeHtml(messages.text('server.notFoundTitle'))
    page = `<!doctype html>
<html lang="${messages.locale}" dir="${messages.dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${title}</title></head>
<body><main><h1>${title}</h1><p>${escapeHtml(messages.text('server.notFoundText'))} <a href="/">${escapeHtml(messages.text('server.notFoundLink'))}</a></p></main></body>
</html>
`
    notFoundPages.set(messages, page)
  }
  return page
}

/** Paths whose callers are programs, which get JSON rather than a page. */
function wantsJson (request: FastifyRequest): boolean {
  if (request.url.startsWith('/accounts/') || request.url.startsWith('/edgeauth.')) return true
  const accept = request.headers.accept ?? ''
  return accept.includes('application/json') && !accept.includes('text/html')
}

function withSecurityHeaders (reply: FastifyReply): FastifyReply {
  // Set here as well as by helmet: a route that opts out of helmet can still end in a 404.
  return reply.headers(STATIC_SECURITY_HEADERS).header('cache-control', NO_STORE)
}

/**
 * Fastify answers an address its router cannot decode (a bad percent-encoding)
 * before any plugin runs, so its own answer has none of the security headers
 * and repeats the address back. This answer has the headers and repeats nothing.
 */
export function answerFrameworkError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
  void answerError(error, request, reply, status, null, 'request failed before routing')
}

/**
 * A JSON error with the security headers, in the request's language: a 4xx
 * says what the error says (null: that the address is not valid); a 5xx
 * says nothing of itself (server.failure) and is logged.
 */
function answerError (error: FastifyError, request: FastifyRequest, reply: FastifyReply, status: number, clientError: FastifyError | null, logMessage: string): FastifyReply {
  if (status >= 500) logFailure(request, 'error', error, logMessage)
  const messages = request.server.messagesFor(request)
  const text = status >= 500 ? messages.text('server.failure') : clientError === null ? messages.text('server.addressInvalid') : textOf(clientError, messages)
  return withSecurityHeaders(reply).code(status).send({ error: text })
}

/**
 * The 404 page (JSON for API paths) and the last-resort error handler, which
 * shows 4xx reasons but never the details of a 5xx.
 */
export const notFoundAndErrors = fp(async function notFoundAndErrors (app: FastifyInstance) {
  app.setNotFoundHandler(async (request, reply) => {
    withSecurityHeaders(reply).code(404)
    if (wantsJson(request)) return reply.send({ error: app.messagesFor(request).text('server.notFound') })
    return reply.type('text/html; charset=utf-8').header('vary', 'Accept-Language').send(notFoundPage(app.messagesFor(request, request.url.split('?')[1] ?? '')))
  })

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
    return answerError(error, request, reply, status, error, 'request failed')
  })
}, { name: 'threshold-not-found-and-errors' })
