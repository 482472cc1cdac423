import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { say } from '../languages/answer-texts.js'
import { requestFacts as factsOf, requestLocale, sendAnswer, type RequestFacts } from '../http/answers.js'
import type { EmailPseudonyms } from '../audit/email-pseudonyms.js'
import type { SsoCompletion } from './sso-completion.js'
import { SSO_PATHS, type SsoFlows, type SsoReply } from './sso-flows.js'
import { discoverSso, SSO_DISCOVERY_PATH } from './sso-discovery.js'
import type { SsoRequirement } from './sso-requirement.js'

/** A signed SAML response is far larger than the service's JSON calls (the edge allows as much). */
const SAML_FORM_BODY_LIMIT_BYTES = 256 * 1024

/** Single sign-on as the reference service runs it: the provider's leg, then the page's completion. */
export interface SsoServices {
  readonly flows: SsoFlows
  readonly completion: SsoCompletion
  /** Which domains have a connection, and which sign in only with it (`"required": true`): the other ways in ask it. */
  readonly requirement: SsoRequirement
  /** SSO_DISCOVERY: whether `auth/sso/discover` is served (404 otherwise, as a backend without it answers). */
  readonly discovery: boolean
}

/** Sends an SSO step's reply: 303 for redirects (a POST must become a GET), never cached. */
export function sendSsoReply (reply: FastifyReply, ssoReply: SsoReply): FastifyReply {
  void reply.header('cache-control', 'no-store')
  if (ssoReply.cookie !== null) void reply.header('set-cookie', ssoReply.cookie)
  if (ssoReply.kind === 'redirect') return reply.code(303).header('location', ssoReply.location).send()
  return reply.code(ssoReply.answer.status).send(ssoReply.answer.body)
}

function rawQuery (request: FastifyRequest): string {
  const start = request.url.indexOf('?')
  return start === -1 ? '' : request.url.slice(start + 1)
}

/**
 * The SSO start and the provider's return leg. The page's completion calls
 * (`v2/auth/login`, `auth/register`) are routed by the accounts app, which
 * hands OIDC and SAML methods to `SsoServices.completion`.
 */
export async function ssoRoutes (app: FastifyInstance, options: { readonly sso: SsoServices, readonly pseudonyms: EmailPseudonyms }): Promise<void> {
  const { flows } = options.sso
  const requestFacts = (request: FastifyRequest, reply: FastifyReply): RequestFacts => factsOf(request, reply, options.pseudonyms)

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: SAML_FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => { done(null, new URLSearchParams(body as string)) })

  app.post(SSO_PATHS.start, async (request, reply) =>
    sendSsoReply(reply, await flows.start(request.body, requestFacts(request, reply))))

  if (options.sso.discovery) {
    app.post(SSO_DISCOVERY_PATH, async (request, reply) =>
      sendAnswer(reply, discoverSso(options.sso.requirement, request.body, requestFacts(request, reply))))
  }

  app.get(SSO_PATHS.oidcCallback, async (request, reply) =>
    sendSsoReply(reply, await flows.oidcCallback(rawQuery(request), request.headers.cookie, requestFacts(request, reply))))

  app.post(SSO_PATHS.samlAcs, { bodyLimit: SAML_FORM_BODY_LIMIT_BYTES }, async (request, reply) =>
    sendSsoReply(reply, await flows.samlAcs(request.body instanceof URLSearchParams ? request.body : undefined, requestFacts(request, reply))))

  app.get(SSO_PATHS.samlContinue, async (request, reply) =>
    sendSsoReply(reply, await flows.samlContinue((request.query as Record<string, unknown>).code, request.headers.cookie, requestFacts(request, reply))))

  app.get(SSO_PATHS.samlMetadata, async (request, reply) => {
    const domain = (request.query as Record<string, unknown>).domain
    const metadata = flows.samlMetadata(typeof domain === 'string' ? domain : null)
    if ('error' in metadata) return reply.code(metadata.status).header('cache-control', 'no-store').send({ error: say({ locale: requestLocale(request) }, metadata.error) })
    return reply.type('application/samlmetadata+xml').header('cache-control', 'public, max-age=300').send(metadata.xml)
  })
}
