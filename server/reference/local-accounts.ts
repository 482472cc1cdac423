import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { AccountsService } from './accounts-service.js'
import { requestFacts, requestLocale, sendAnswer } from './answers.js'
import { say } from './answer-texts.js'
import type { EmailPseudonyms } from './email-pseudonyms.js'
import { answerErrorsAsJson, answerNotFoundAsJson } from './error-answers.js'
import type { ReferenceMetrics } from './metrics.js'

export interface LocalAccountsOptions {
  readonly accounts: AccountsService
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

/**
 * Local-network mode: the browser posts the login payload straight to
 * `/authenticate` here. CORS admits only the configured page origins, and
 * answers Chrome's Private Network Access preflight, since a public page
 * calls a private address.
 */
export async function localAccountsApp (app: FastifyInstance, options: LocalAccountsOptions): Promise<void> {
  const allowed = new Set(options.allowedOrigins.map((origin) => origin.toLowerCase()))
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

  app.options('/authenticate', { config: { rateLimit: false } }, async (request, reply) => {
    reply
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
    if (request.headers['access-control-request-private-network'] === 'true') {
      reply.header('access-control-allow-private-network', 'true')
    }
    return reply.code(204).send()
  })

  app.post('/authenticate', async (request, reply) =>
    // Called from another origin: no browser to recognise (its cookies are not sent), so no "was this you?".
    sendAnswer(reply, await options.metrics.countSignIn('password',
      options.accounts.passwordLogin(request.body, { ...requestFacts(request, reply, options.pseudonyms), browser: null }, { askSecondFactor: false }),
      (answer) => answer)))
}
