import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field, secondFactorMethod } from '../app.js'
import { requestFacts, requestLocale, sendAnswer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import type { EmailPseudonyms } from '../audit/email-pseudonyms.js'
import { answerErrorsAsJson, answerNotFoundAsJson } from '../http/error-answers.js'
import type { ReferenceMetrics } from '../metrics/metrics.js'
import type { SecondFactors } from '../second-factor/second-factors.js'
import type { SessionTokens } from '../sessions/session-tokens.js'
import type { TokenScope } from '../sessions/tokens.js'
import type { PasswordSignIn } from './password-sign-in.js'

export interface LocalAccountsOptions {
  readonly passwordSignIn: PasswordSignIn
  readonly sessionTokens: SessionTokens
  /**
   * The second factor's calls for this listener's logins (SecondFactors.withScope);
   * null: SECOND_FACTOR=false, and no login asks.
   */
  readonly secondFactors: SecondFactors | null
  /** Page origins that may call `/authenticate` from the browser. */
  readonly allowedOrigins: readonly string[]
  readonly perMinute: number
  /** The names of addresses in the audit log. */
  readonly pseudonyms: EmailPseudonyms
  /** Counts its sign-ins with the service's (a password sign-in like any other). */
  readonly metrics: Pick<ReferenceMetrics, 'countSignIn'>
}

/** How long browsers may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600

/** What this listener's tokens and challenges are good for: here alone (docs/reference-service.md, "Local-network mode"). */
export const LOCAL_NETWORK_SCOPE: TokenScope = 'local-network'

/** The second factor's calls the page makes here after `/authenticate` answered with a challenge (docs/second-factor.md). */
const SECOND_FACTOR_PATHS = ['/second-factor/verify', '/second-factor/enrol/start', '/second-factor/enrol/confirm'] as const

/** The session calls of this listener's tokens, for the product that holds them. */
const TOKEN_PATHS = ['/token/refresh', '/token/revoke'] as const

/**
 * Local-network mode: the browser posts the login payload straight to
 * `/authenticate` here, and the second factor's code or enrolment when the
 * account or its organisation has one. CORS admits only the configured
 * page origins, and answers Chrome's Private Network Access preflight,
 * since a public page calls a private address. What a login here issues
 * (its challenge, its tokens) is scoped to this listener: the edge's
 * service refreshes none of it and changes no account with it.
 */
export async function localAccountsApp (app: FastifyInstance, options: LocalAccountsOptions): Promise<void> {
  const { passwordSignIn, sessionTokens, secondFactors, pseudonyms, metrics } = options
  const allowed = new Set(options.allowedOrigins.map((origin) => origin.toLowerCase()))
  // Called from another origin: no browser to recognise (its cookies are not sent), so no "was this you?" and no remembered browser.
  const factsOf = (request: FastifyRequest, reply: FastifyReply): RequestFacts => ({ ...requestFacts(request, reply, pseudonyms), browser: null })
  answerErrorsAsJson(app)
  answerNotFoundAsJson(app)
  await app.register(rateLimit, {
    max: options.perMinute,
    timeWindow: 60_000,
    ipv6Subnet: 64,
    errorResponseBuilder: (request) => Object.assign(new Error(say({ locale: requestLocale(request) }, 'request.tooMany')), { statusCode: 429 })
  })

  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff').header('vary', 'Origin')
    const origin = request.headers.origin
    if (origin === undefined) return
    if (!allowed.has(origin.toLowerCase())) {
      return reply.code(403).send({ error: say({ locale: requestLocale(request) }, 'request.originNotAllowed') })
    }
    reply.header('access-control-allow-origin', origin)
  })

  const served = ['/authenticate', ...(secondFactors === null ? [] : SECOND_FACTOR_PATHS), ...TOKEN_PATHS]
  for (const path of served) {
    app.options(path, { config: { rateLimit: false } }, async (request, reply) => {
      reply
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'content-type')
        .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
      if (request.headers['access-control-request-private-network'] === 'true') {
        reply.header('access-control-allow-private-network', 'true')
      }
      return reply.code(204).send()
    })
  }

  app.post('/authenticate', async (request, reply) =>
    sendAnswer(reply, await metrics.countSignIn('password',
      passwordSignIn.login(request.body, factsOf(request, reply), { scope: LOCAL_NETWORK_SCOPE }),
      (answer) => answer)))

  if (secondFactors !== null) {
    app.post('/second-factor/verify', async (request, reply) =>
      sendAnswer(reply, await metrics.countSignIn(secondFactorMethod(request.body),
        secondFactors.codeStep.verify(request.body, factsOf(request, reply)), (answer) => answer)))
    // With the login's challenge only: an enrolment by bearer token is an account change, which this listener's tokens never make.
    app.post('/second-factor/enrol/start', async (request, reply) =>
      sendAnswer(reply, await secondFactors.enrolment.start(null, request.body, factsOf(request, reply))))
    app.post('/second-factor/enrol/confirm', async (request, reply) =>
      sendAnswer(reply, await secondFactors.enrolment.confirm(null, request.body, factsOf(request, reply))))
  }

  app.post('/token/refresh', async (request, reply) =>
    sendAnswer(reply, await sessionTokens.refresh(field(request.body, 'refresh'), factsOf(request, reply), LOCAL_NETWORK_SCOPE)))

  app.post('/token/revoke', async (request, reply) =>
    sendAnswer(reply, await sessionTokens.revoke(field(request.body, 'refresh'), factsOf(request, reply))))
}
