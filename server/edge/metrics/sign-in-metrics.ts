import type { FastifyReply, FastifyRequest } from 'fastify'
import { SOCIAL_COMPLETION_METHOD } from '../../../common/social/social-providers.js'
import type { EdgeMetrics, PasskeyRegistrationKind, SignInMethod, SignInOutcome } from './metrics.js'

/*
 * Sign-ins and passkey registrations, counted at the edge from the proxied
 * accounts calls: the path, one or two fields of the request body read
 * against fixed values, and the answer's status and shape (tokens, or a
 * second-factor challenge). Nothing of a body is kept or logged: an email,
 * a password, a token or a code never reaches a label.
 */

/** What a readable 2xx answer of a sign-in call carried. */
export type AnswerShape = 'tokens' | 'challenge' | 'error' | 'neither'

/** The shape of a decoded JSON object answer, as the page reads it (common/http/accounts-answers.ts). */
export function answerShape (answer: Readonly<Record<string, unknown>>): AnswerShape {
  if (typeof answer.error === 'string' && answer.error !== '') return 'error'
  if (typeof answer.second_factor === 'string' && typeof answer.challenge === 'string') return 'challenge'
  if (typeof answer.auth === 'string' && answer.auth !== '' && typeof answer.refresh === 'string' && answer.refresh !== '') return 'tokens'
  return 'neither'
}

function bodyFields (body: unknown): Readonly<Record<string, unknown>> {
  if (!Buffer.isBuffer(body)) return {}
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {}
  } catch {
    return {}
  }
}

/** What a call counts as: a sign-in by a method, a passkey registration of a kind, or nothing. */
export type CountedCall =
  | { readonly counts: 'sign-in', readonly method: SignInMethod }
  | { readonly counts: 'registration', readonly kind: PasskeyRegistrationKind }
  | null

/**
 * The call a proxied accounts path and its body stand for. A passkey
 * sign-in names its ceremony in `mediation` (`conditional`: the autofill
 * menu; `button`: the prompt after the button); a client that says nothing
 * is counted as the button, the prompt every client can show. A passkey
 * registration says `conditional: true` for the automatic upgrade after a
 * password sign-in; otherwise it is the offer.
 */
function countedCall (path: string, body: unknown): CountedCall {
  switch (path) {
    case 'v2/login':
      return { counts: 'sign-in', method: 'password' }
    // Asking for a code is no sign-in: only its use is counted (docs/email-codes.md).
    case 'email-code/login':
      return { counts: 'sign-in', method: 'email_code' }
    case 'v2/auth/login': {
      const method = bodyFields(body).login_method
      if (method === 'GOOGLE') return { counts: 'sign-in', method: 'google' }
      if (method === 'SAML' || method === 'OIDC') return { counts: 'sign-in', method: 'sso' }
      // One label for every connection: the body's provider is the client's to name, and a label must come from a fixed list.
      if (method === SOCIAL_COMPLETION_METHOD) return { counts: 'sign-in', method: 'social' }
      return null
    }
    case 'passkeys/login':
      return { counts: 'sign-in', method: bodyFields(body).mediation === 'conditional' ? 'passkey_autofill' : 'passkey_button' }
    case 'second-factor/verify':
      return { counts: 'sign-in', method: bodyFields(body).recovery_code !== undefined ? 'recovery_code' : 'second_factor' }
    case 'second-factor/enrol/confirm':
      // During a login (a challenge, no bearer token), the enrolment ends the sign-in with the tokens.
      return typeof bodyFields(body).challenge === 'string' ? { counts: 'sign-in', method: 'second_factor' } : null
    case 'passkeys/register':
      return { counts: 'registration', kind: bodyFields(body).conditional === true ? 'automatic_upgrade' : 'offer' }
    default:
      return null
  }
}

/** The outcome of a sign-in call: its final status and, for a 2xx, the shape of its answer. */
function signInOutcome (status: number, shape: AnswerShape | undefined): SignInOutcome {
  if (status >= 500) return 'error'
  if (status >= 400) return 'refused'
  if (status < 200 || status > 299) return 'error'
  if (shape === 'tokens') return 'success'
  if (shape === 'challenge') return 'second_factor_required'
  if (shape === 'error') return 'refused'
  return 'error'
}

/**
 * The counter of one proxy scope: `noteAnswer` is given each readable
 * answer (server/edge/upstream/json-answers.ts) and keeps only its shape, until the `onResponse`
 * hook counts the call with the status actually sent (an edge refusal, a
 * rate limit or an upstream failure included).
 */
export function signInCounter (metrics: EdgeMetrics, prefix: string) {
  const shapes = new WeakMap<FastifyRequest, AnswerShape>()
  return {
    noteAnswer: (request: FastifyRequest, answer: Readonly<Record<string, unknown>>): void => {
      shapes.set(request, answerShape(answer))
    },
    onResponse: async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const call = countedCall((request.routeOptions.url ?? '').slice(prefix.length + 1), request.body)
      if (call === null) return
      const status = reply.statusCode
      if (call.counts === 'registration') {
        metrics.passkeyRegistration(call.kind, status >= 200 && status <= 299 ? 'success' : status >= 400 && status <= 499 ? 'refused' : 'error')
        return
      }
      metrics.signIn(call.method, signInOutcome(status, shapes.get(request)))
    }
  }
}
