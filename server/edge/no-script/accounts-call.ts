import type { FastifyReply, FastifyRequest } from 'fastify'
import type { JsonAnswer } from '../../../common/http/accounts-answers.js'
import { CHALLENGE_REQUIRED_REASON, CHALLENGE_REQUIRED_STATUS } from '../../../common/challenge/challenge.js'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import { callEdgeRoute } from './inner-call.js'

/**
 * One accounts call as a form post makes it: the path under /accounts/, the
 * JSON body the page's scripts send, and the account's auth token as the
 * bearer where the call needs one (the account's own calls, as the page's
 * client/account-changes/fresh-proof-calls.ts send it).
 */
export type AccountsCall = (path: string, payload: Readonly<Record<string, unknown>>, bearer?: string) => Promise<JsonAnswer>

/** A Set-Cookie value's name and value; the value '' for one that removes the cookie. */
function setCookiePair (line: string): readonly [string, string] | null {
  const pair = line.split(';', 1)[0]!
  const equals = pair.indexOf('=')
  if (equals <= 0) return null
  const removes = /;\s*max-age=0\s*(;|$)/i.test(line)
  return [pair.slice(0, equals).trim(), removes ? '' : pair.slice(equals + 1).trim()]
}

/** The visitor's Cookie header with the cookies `set` names in place of theirs (those set to '' left out). */
function withCookies (header: string | undefined, set: ReadonlyMap<string, string>): string {
  const kept = (header ?? '').split(';').map((pair) => pair.trim()).filter((pair) => pair !== '' && !set.has(pair.slice(0, Math.max(pair.indexOf('='), 0))))
  return [...kept, ...[...set].filter(([, value]) => value !== '').map(([name, value]) => `${name}=${value}`)].join('; ')
}

/**
 * The accounts calls of one form post, through the edge's own proxy
 * (inner-call.ts), read as the page reads them (client/http/post-json.ts): a JSON
 * object with its status, else `unreadable`. They say `Accept-Language` as
 * the page would, in the posted page's language: the edge's failure texts
 * and the backend's own follow it. Each carries the cookies the post's earlier
 * calls set, as the browser's next call would (the fresh proof `reauthenticate`
 * leaves, a refreshed token). A challenge the edge asks for
 * (server/edge/challenge/challenge-gate.ts) cannot be solved without scripts: its
 * answer says so instead, and the form is shown again with its email.
 */
export function accountsCaller (request: FastifyRequest, reply: FastifyReply, messages: Messages): AccountsCall {
  const set = new Map<string, string>()
  return async (path, payload, bearer) => {
    const answer = await callEdgeRoute(request, reply, {
      url: `/accounts/${path}`,
      contentType: 'application/json',
      headers: {
        accept: 'application/json',
        'accept-language': messages.locale,
        ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        ...(set.size === 0 ? {} : { cookie: withCookies(request.headers.cookie, set) })
      },
      body: JSON.stringify(payload)
    })
    const setCookie = answer.headers['set-cookie'] ?? []
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const pair = setCookiePair(line)
      if (pair !== null) set.set(pair[0], pair[1])
    }
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
