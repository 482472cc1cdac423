import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { EmailPseudonyms } from '../audit/email-pseudonyms.js'
import { requestFacts as factsOf, sendAnswer, type RequestFacts } from '../http/answers.js'
import type { SocialAccount } from './social-account.js'
import type { SocialCompletion } from './social-completion.js'
import { SOCIAL_PATHS, type SocialFlows, type SocialReply } from './social-flows.js'

/** Apple's form_post carries a code, a state, an ID token and the user's name: far less than this. */
const FORM_POST_BODY_LIMIT_BYTES = 64 * 1024

/** Social sign-in as the reference service runs it: the provider's leg, the page's completion, the account view's calls. */
export interface SocialServices {
  readonly flows: SocialFlows
  readonly completion: SocialCompletion
  readonly account: SocialAccount
}

/** Sends a provider leg's step: 303 (a POST must become a GET), never cached. */
function sendSocialReply (reply: FastifyReply, socialReply: SocialReply): FastifyReply {
  void reply.header('cache-control', 'no-store')
  if (socialReply.cookie !== null) void reply.header('set-cookie', socialReply.cookie)
  return reply.code(303).header('location', socialReply.location).send()
}

function rawQuery (request: FastifyRequest): string {
  const start = request.url.indexOf('?')
  return start === -1 ? '' : request.url.slice(start + 1)
}

/** The connection a return address names (`:provider`). */
function providerOf (request: FastifyRequest): string {
  return (request.params as { provider?: string }).provider ?? ''
}

function bearerToken (request: FastifyRequest): string | null {
  const match = /^Bearer\s+([\w.~+/=-]{1,8192})$/i.exec(request.headers.authorization ?? '')
  return match === null ? null : match[1]!
}

/**
 * The start and the provider's return leg, and the account view's link and
 * unlink. The completion (`v2/auth/login` with `login_method` SOCIAL) is
 * routed by the accounts app, which hands it to `SocialServices.completion`.
 */
export async function socialRoutes (app: FastifyInstance, options: { readonly social: SocialServices, readonly pseudonyms: EmailPseudonyms, readonly facts?: (request: FastifyRequest, reply: FastifyReply) => RequestFacts }): Promise<void> {
  const { flows, account } = options.social
  const requestFacts = options.facts ?? ((request: FastifyRequest, reply: FastifyReply): RequestFacts => factsOf(request, reply, options.pseudonyms))

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_POST_BODY_LIMIT_BYTES },
    (_request, body, done) => { done(null, new URLSearchParams(body as string)) })

  app.post(SOCIAL_PATHS.start, async (request, reply) =>
    sendAnswer(reply, await flows.start(request.body, requestFacts(request, reply))))

  app.get(SOCIAL_PATHS.callback, async (request, reply) =>
    sendSocialReply(reply, await flows.callback(providerOf(request), rawQuery(request), request.headers.cookie, requestFacts(request, reply))))

  app.post(SOCIAL_PATHS.formPost, { bodyLimit: FORM_POST_BODY_LIMIT_BYTES }, async (request, reply) =>
    sendSocialReply(reply, await flows.formPost(providerOf(request), request.body instanceof URLSearchParams ? request.body : undefined, requestFacts(request, reply))))

  app.get(SOCIAL_PATHS.continue, async (request, reply) =>
    sendSocialReply(reply, await flows.continue((request.query as Record<string, unknown>).code, request.headers.cookie, requestFacts(request, reply))))

  app.post(SOCIAL_PATHS.linkStart, async (request, reply) =>
    sendAnswer(reply, await account.linkStart(bearerToken(request), request.body, requestFacts(request, reply))))

  app.post(SOCIAL_PATHS.link, async (request, reply) =>
    sendAnswer(reply, await account.link(bearerToken(request), request.body, request.headers.cookie, requestFacts(request, reply))))

  app.post(SOCIAL_PATHS.unlink, async (request, reply) =>
    sendAnswer(reply, await account.unlink(bearerToken(request), request.body, requestFacts(request, reply))))
}
