import type { FastifyReply, FastifyRequest } from 'fastify'
import type { JsonAnswer } from '../../../common/accounts-answers.js'
import type { Locale } from '../../../common/message-catalogue.js'
import { callEdgeRoute } from './inner-call.js'

/** One accounts call as a form post makes it: the path under /accounts/ and the JSON body the page's scripts send. */
export type AccountsCall = (path: string, payload: Readonly<Record<string, unknown>>) => Promise<JsonAnswer>

/**
 * The accounts calls of one form post, through the edge's own proxy
 * (inner-call.ts), read as the page reads them (client/api/http.ts): a JSON
 * object with its status, else `unreadable`. They say `Accept-Language` as
 * the page would, in the posted page's language: the edge's failure texts
 * and the backend's own follow it.
 */
export function accountsCaller (request: FastifyRequest, reply: FastifyReply, locale: Locale): AccountsCall {
  return async (path, payload) => {
    const answer = await callEdgeRoute(request, reply, {
      url: `/accounts/${path}`,
      contentType: 'application/json',
      headers: { accept: 'application/json', 'accept-language': locale },
      body: JSON.stringify(payload)
    })
    let body: unknown
    try {
      body = JSON.parse(answer.body.toString('utf8'))
    } catch {
      return { kind: 'unreadable' }
    }
    return body !== null && typeof body === 'object' && !Array.isArray(body)
      ? { kind: 'json', status: answer.status, body: body as Record<string, unknown> }
      : { kind: 'unreadable' }
  }
}
