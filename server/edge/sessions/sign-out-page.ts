import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import { escapeHtml } from '../page/page.js'
import { NO_STORE, STATIC_SECURITY_HEADERS } from '../http/security-headers.js'

/** The `view` of the sign-out URL a product links to (docs/account-view.md). */
export const SIGN_OUT_VIEW = 'logout'

/** The `form` field of the sign-out page's one form (common/account/account-state.ts ACCOUNT_FORMS). */
export const SIGN_OUT_FORM = 'logout'

interface SignOutPageContent {
  /** The page's address (its query without `?`), where the form posts: the post reads `redirect` from it. */
  readonly query: string
  readonly productName: string
  /** What went wrong with the last attempt (the session may live on), or null. */
  readonly error: string | null
}

/**
 * The small page of `?view=logout` (docs/account-view.md): a question and
 * one button, a form that posts to the same address. Ending a session is a
 * POST from this origin (server/edge/no-script/logout-form.ts), never a GET:
 * a link or an image on another site must not sign a visitor out. It works
 * without scripts and carries none; the empty icon spares a /favicon.ico 404.
 */
function signOutPage (messages: Messages, content: SignOutPageContent): string {
  const heading = escapeHtml(messages.text('server.signOutHeading', { product: content.productName }))
  const action = escapeHtml(content.query === '' ? '/' : `/?${content.query}`)
  const error = content.error === null ? '' : `<p role="alert">${escapeHtml(content.error)}</p>`
  return `<!doctype html>
<html lang="${messages.locale}" dir="${messages.dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><link rel="icon" href="data:,"><title>${heading}</title></head>
<body><main><h1>${heading}</h1>${error}<p>${escapeHtml(messages.text('server.signOutExplanation'))}</p>
<form method="post" action="${action}"><input type="hidden" name="form" value="${SIGN_OUT_FORM}"><button type="submit">${escapeHtml(messages.text('signedIn.signOut'))}</button></form></main></body>
</html>
`
}

/**
 * The sign-out page's CSP: the static one (no script at all), with the
 * page's own `form-action` sources for its host in place of `'self'`:
 * browsers hold the 303 that follows the post to `form-action`, and it
 * leads to the product's `redirect` (server/edge/http/security-headers.ts formActionByHost).
 */
function signOutPageSecurityPolicy (formAction: string): string {
  return (STATIC_SECURITY_HEADERS['content-security-policy'] ?? '').replace("form-action 'self'", `form-action ${formAction}`)
}

/** Answers with the sign-out page for the request's address, in its language, with `status` and the last attempt's error. */
export type SignOutPageAnswer = (request: FastifyRequest, reply: FastifyReply, page: { readonly status: number, readonly error: string | null }) => FastifyReply

export interface SignOutPageOptions {
  /** PRODUCT_NAME. */
  readonly productName: string
  /** The host name a request is for, as the edge states it (server/edge/http/host-header.ts statedHostName). */
  readonly hostnameOf: (request: FastifyRequest) => string
  /** The page's `form-action` sources for a host (server/edge/http/security-headers.ts formActionByHost). */
  readonly formActionFor: (hostname: string) => string
}

/**
 * The sign-out page as an answer: the security headers of every answer that
 * is not the page (set here: the page's own route opts out of helmet) with
 * the policy above, never stored, in the address's language.
 */
export function signOutPageAnswer (options: SignOutPageOptions): SignOutPageAnswer {
  return (request, reply, { status, error }) => {
    const queryStart = request.url.indexOf('?')
    const query = queryStart === -1 ? '' : request.url.slice(queryStart + 1)
    const messages = request.server.messagesFor(request, query)
    return reply.code(status)
      .headers(STATIC_SECURITY_HEADERS)
      .header('content-security-policy', signOutPageSecurityPolicy(options.formActionFor(options.hostnameOf(request))))
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', NO_STORE)
      .header('vary', 'Accept-Language')
      .send(signOutPage(messages, { query, productName: options.productName, error }))
  }
}
