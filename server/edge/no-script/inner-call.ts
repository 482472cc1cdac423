import type { FastifyReply, FastifyRequest } from 'fastify'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { REQUEST_ID_HEADER } from '../../shared/logger.js'
import { HttpError } from '../http/http-error.js'

/**
 * The visitor's request headers an inner call keeps: those the edge reads to
 * state the client (its address, scheme and host behind a trusted proxy), the
 * browser's name and its cookies, among them the edge's own note of a browser
 * that signed in (server/edge/known-browsers/known-browser.ts), which the challenge reads on
 * the login as it does on the page's. The routes called filter them further,
 * as they filter the page's own calls (server/edge/upstream/accounts-proxy.ts ACCOUNTS_REQUEST_HEADERS).
 */
const KEPT_HEADERS = ['host', 'user-agent', 'cookie', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded'] as const

/** Headers of an answer that are the visitor's too: the backend's cookies (SSO state, a remembered browser), the edge's note of a browser that signed in, and Retry-After. */
const PASSED_BACK_HEADERS = ['set-cookie', 'retry-after'] as const

/**
 * The header that marks a call as one the edge makes for a form post, and
 * its value: drawn when the process starts, known to no visitor, never
 * passed on (the routes' header allowlists do not name it). The challenge
 * reads it (server/edge/challenge/challenge-gate.ts): a form posted without scripts
 * cannot solve a challenge, so the account signal is not applied to its
 * registration, reset and verification-link requests; a login meets it.
 */
const FORM_POST_HEADER = 'x-threshold-form-post'
const FORM_POST_MARK = Buffer.from(randomBytes(24).toString('base64url'))

/** Whether `request` is a call the edge made for a form post (callEdgeRoute), not one a client sent. */
export function isFormPostCall (request: FastifyRequest): boolean {
  const value = request.headers[FORM_POST_HEADER]
  if (typeof value !== 'string') return false
  const given = Buffer.from(value)
  return given.length === FORM_POST_MARK.length && timingSafeEqual(given, FORM_POST_MARK)
}

export interface InnerAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/**
 * Makes, for a form post, the call the page's scripts would make to the
 * edge: through the edge's own route (injected, never over the network), so
 * that it meets the same origin check, rate limit (counted for the visitor's
 * address), domain-check enforcement, header allowlist, upstream timeout,
 * answer checks, failure messages, logs and metrics as the page's call. The
 * call is the page's own (`Sec-Fetch-Site: same-origin`): the form post it
 * stands for has passed the same check. The backend's cookies and
 * Retry-After are added to `reply`, as the browser would have received them.
 */
export async function callEdgeRoute (request: FastifyRequest, reply: FastifyReply, call: {
  readonly url: string
  readonly contentType: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body: Buffer | string
}): Promise<InnerAnswer> {
  const headers: Record<string, string | string[]> = {}
  for (const name of KEPT_HEADERS) {
    const value = request.headers[name]
    if (value !== undefined) headers[name] = value
  }
  // The socket's address: with the headers above, the inner call's client
  // address is the visitor's. Without one (the connection already gone),
  // inject would fall back to 127.0.0.1, which a loopback TRUST_PROXY trusts
  // and whose rate-limit bucket is no visitor's: the call is refused instead.
  const remoteAddress = request.raw.socket?.remoteAddress
  if (remoteAddress === undefined) throw new HttpError(400, 'server.formUnreadable')
  const response = await request.server.inject({
    method: 'POST',
    url: call.url,
    remoteAddress,
    headers: {
      ...headers,
      ...call.headers,
      'content-type': call.contentType,
      'sec-fetch-site': 'same-origin',
      [REQUEST_ID_HEADER]: request.id,
      [FORM_POST_HEADER]: FORM_POST_MARK.toString()
    },
    payload: call.body
  })
  for (const name of PASSED_BACK_HEADERS) {
    const value = response.headers[name]
    if (value !== undefined) void reply.header(name, value)
  }
  return { status: response.statusCode, headers: response.headers as IncomingHttpHeaders, body: response.rawPayload }
}
