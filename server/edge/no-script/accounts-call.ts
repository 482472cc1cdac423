import type { FastifyReply, FastifyRequest } from 'fastify'
import type { JsonAnswer } from '../../../common/http/accounts-answers.js'
import { CHALLENGE_REQUIRED_REASON, CHALLENGE_REQUIRED_STATUS } from '../../../common/challenge/challenge.js'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import { callEdgeRoute } from './inner-call.js'

/** One accounts call as a form post makes it: the path under /accounts/ and the JSON body the page's scripts send. */
export type AccountsCall = (path: string, payload: Readonly<Record<string, unknown>>) => Promise<JsonAnswer>

/**
 * The accounts calls of one form post, through the edge's own proxy
 * (inner-call.ts), read as the page reads them (client/http/post-json.ts): a JSON
 * object with its status, else `unreadable`. They say `Accept-Language` as
 * the page would, in the posted page's language: the edge's failure texts
 * and the backend's own follow it. A challenge the edge asks for
 * (server/edge/challenge/challenge-gate.ts) cannot be solved without scripts: its
 * answer says so instead, and the form is shown again with its email.
 */
export function accountsCaller (request: FastifyRequest, reply: FastifyReply, messages: Messages): AccountsCall {
  return async (path, payload) => {
    const answer = await callEdgeRoute(request, reply, {
      url: `/accounts/${path}`,
      contentType: 'application/json',
      headers: { accept: 'application/json', 'accept-language': messages.locale },
      body: JSON.stringify(payload)
    })
    let body: unknown
    try {
      body = JSON.parse(answer.body.toString('utf8'))
    } catch {
      return { kind: 'unreadable' }
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return { kind: 'unreadable' }
    const object = body as Record<string, unknown>
    if (answer.status === CHALLENGE_REQUIRED_STATUS && object.reason === CHALLENGE_REQUIRED_REASON) {
      return { kind: 'json', status: answer.status, body: { error: messages.text('server.challengeNeedsScripts') } }
    }
    return { kind: 'json', status: answer.status, body: object }
  }
}
