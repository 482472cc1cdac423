import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccountState } from '../../../common/account/account-state.js'
import type { PageFormState } from '../../../common/page/page-render.js'
import type { PageAnswer } from '../page/page-answer.js'

/**
 * Answers a form post with the whole page rendered for `state`, with
 * `status`. Given to the form-post route by the server, built from the
 * page's own answer ({@link formPageAnswerFrom}).
 */
export type FormPageAnswer = (request: FastifyRequest, reply: FastifyReply, page: {
  readonly status: number
  /** What a form post left to show; null: nothing (the account view's plain GET). */
  readonly state: PageFormState | null
  /** The account view's state (server/edge/account/), rendered and embedded with the page. */
  readonly account?: AccountState | null
}) => FastifyReply

/** Headers the post's calls put on the reply that the page must carry: the backend's cookies and Retry-After (inner-call.ts). */
const CARRIED_HEADERS = ['set-cookie', 'retry-after'] as const

/**
 * The page for a form post's state, as the edge answers its GETs
 * (server/edge/page/page-answer.ts: the view rendered with the state, the state embedded
 * for the scripts, the page's CSP, no-store), for the
 * address the form posted to. The page is written on the raw response, so
 * the headers already on the reply are moved there first.
 */
export function formPageAnswerFrom (pageAnswer: PageAnswer): FormPageAnswer {
  return (request, reply, { status, state, account = null }) => {
    for (const name of CARRIED_HEADERS) {
      const value = reply.getHeader(name)
      if (value !== undefined) reply.raw.setHeader(name, value)
    }
    const queryStart = request.url.indexOf('?')
    reply.hijack()
    const failure = pageAnswer.pageWithState(request.raw, reply.raw, queryStart === -1 ? '' : request.url.slice(queryStart + 1), state, status, account)
    // A bug, not the visitor's doing: the page went out for the scripts to render. Said once, with the request id, never the query.
    if (failure !== null) request.log.warn({ err: failure.error, view: state?.view ?? 'account' }, 'form post page render failed')
    return reply
  }
}
