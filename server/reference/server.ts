import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { ConfigError } from '../shared/env-parsing.js'
import { logCompletedRequests, REQUEST_ID_HEADER, requestIdFor } from '../shared/logger.js'
import { REFERENCE_HEALTH_PATH } from '../shared/reference-health.js'
import { referenceAccountsApp } from './app.js'
import type { ReferenceConfig } from './config.js'
import { edgeAuthResponder } from './domain-check/edge-auth-responder.js'
import { acceptOnlyTheEdge } from './http/edge-only.js'
import { LOCAL_NETWORK_SCOPE, localAccountsApp } from './sign-in/local-accounts.js'
import { ReferenceMetrics } from './metrics/metrics.js'
import { oidcRoutes } from './oidc/oidc-routes.js'
import { referenceMetricsRoute } from './metrics/metrics-route.js'
import { createReferenceServices, type ReferenceServices, type ReferenceServicesOptions } from './services.js'

/** The largest request body the reference services read: every call they answer is a small form or JSON object. */
const BODY_LIMIT_BYTES = 16 * 1024

/** What one reference process may answer behind the edge. */
export type ReferenceServiceName = 'accounts' | 'edge-auth'

export interface ReferenceServerOptions extends ReferenceServicesOptions {
  readonly config: ReferenceConfig
  /** pino options (server/shared/logger.ts), or false for none. */
  readonly logger: FastifyServerOptions['logger']
  /** The services to answer; both by default. */
  readonly serve?: ReadonlySet<ReferenceServiceName>
  /**
   * The edge's token for `GET /metrics` (server/reference/metrics/metrics-route.ts): with it, the
   * route is served and the process's own figures are collected too;
   * without, neither.
   */
  readonly metricsToken?: string | null
  /**
   * The secret the edge sends on every call (server/shared/embedded-secret.ts):
   * any request without it is refused before its route (server/reference/http/edge-only.ts). Null:
   * no edge calls this server (`npm run local-accounts`), and it answers nobody.
   */
  readonly embeddedSecret: string | null
}

export interface ReferenceServer {
  /** Ready, not listening: the caller chooses where. Closing it closes the store too. */
  readonly app: FastifyInstance
  readonly services: ReferenceServices
}

/** The store could not be opened (typically DATABASE_URL unreachable); already logged through `log`. */
export class ReferenceStoreError extends Error {
  constructor (readonly log: FastifyInstance['log'], cause: unknown) {
    super(`the reference services could not open their store: ${(cause as Error).message}`, { cause })
  }
}

/**
 * The reference services' HTTP server, built the one way that both
 * `server/reference/main.ts` and the test suites use: the accounts service
 * and the domain-check responder behind the edge, on loopback.
 */
export async function buildReferenceServer (options: ReferenceServerOptions): Promise<ReferenceServer> {
  const serve = options.serve ?? new Set<ReferenceServiceName>(['accounts', 'edge-auth'])
  const app = Fastify({
    logger: options.logger,
    // The client address is the one the edge states: a request reaches a route only with the edge's secret (server/reference/http/edge-only.ts).
    trustProxy: 'loopback',
    bodyLimit: BODY_LIMIT_BYTES,
    // The edge's request id is kept, so that one request reads as one in both logs.
    requestIdHeader: false,
    genReqId: (request) => requestIdFor(request.headers[REQUEST_ID_HEADER]),
    logController: new LogController({ disableRequestLogging: true })
  })
  logCompletedRequests(app)
  acceptOnlyTheEdge(app, options.embeddedSecret)

  const metricsToken = options.metricsToken ?? null
  let services: ReferenceServices
  try {
    services = await createReferenceServices(options.config, app.log, {
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.hashGate === undefined ? {} : { hashGate: options.hashGate }),
      metrics: new ReferenceMetrics({ processFigures: metricsToken !== null })
    })
  } catch (error) {
    // A setting found wrong only against the store (an OIDC client id also added with the admin command) is the operator's to fix: one line, as the others.
    if (error instanceof ConfigError) throw error
    app.log.fatal({ err: error }, 'the reference services could not open their store')
    throw new ReferenceStoreError(app.log, error)
  }
  app.addHook('onClose', async () => { await services.close() })

  // The edge's readiness probe, every 2 s at most while /readyz is asked: the
  // process answers, and its store can be reached (a cached `SELECT 1` with
  // PostgreSQL: AccountStore.reachable). Not logged, or it would fill the log with probes.
  app.get(REFERENCE_HEALTH_PATH, { logLevel: 'silent' }, async (_request, reply) => {
    const reachable = await services.store.reachable()
    return reply.code(reachable ? 200 : 503).header('cache-control', 'no-store')
      .send(reachable ? { status: 'ok' } : { status: 'unavailable', store: 'unreachable' })
  })

  if (serve.has('accounts')) {
    await app.register(referenceAccountsApp, {
      passwordSignIn: services.passwordSignIn,
      registration: services.registration,
      resetRequest: services.resetRequest,
      resetCompletion: services.resetCompletion,
      googleSignIn: services.googleSignIn,
      googleRegistration: services.googleRegistration,
      sessionTokens: services.sessionTokens,
      verification: services.verification,
      browserNotices: services.browserNotices,
      undoChange: services.undoChange,
      recentFactors: services.recentFactors,
      tokens: services.tokens,
      sso: services.sso,
      social: services.social,
      passkeys: services.passkeys,
      secondFactors: services.secondFactors,
      emailCodes: services.emailCodes,
      reauthentication: services.reauthentication,
      otherSessions: services.otherSessions,
      passwordChange: services.passwordChange,
      addressChange: services.addressChange,
      account: services.account,
      pseudonyms: services.pseudonyms,
      metrics: services.metrics
    })
    await app.register(oidcRoutes, { provider: services.oidc.provider, interactions: services.oidc.interactions, publicUrl: options.config.publicUrl })
  }
  if (metricsToken !== null) await app.register(referenceMetricsRoute, { metrics: services.metrics, token: metricsToken })
  if (serve.has('edge-auth')) {
    await app.register(edgeAuthResponder, {
      authorizedDomains: options.config.authorizedDomains,
      unauthorizedDomains: options.config.unauthorizedDomains
    })
  }
  await app.ready()
  return { app, services }
}

/**
 * The local-network accounts listener (`/authenticate` and the second
 * factor's calls, made by the page straight from the browser, and the
 * refresh of its tokens), sharing the accounts of a reference server.
 * Closing it leaves the store open: the reference server owns that.
 */
export async function buildLocalAccountsServer (options: {
  readonly services: ReferenceServices
  readonly logger: FastifyServerOptions['logger']
  readonly perMinute: number
}): Promise<FastifyInstance> {
  const local = Fastify({ logger: options.logger, bodyLimit: BODY_LIMIT_BYTES })
  await local.register(localAccountsApp, {
    passwordSignIn: options.services.passwordSignIn,
    sessionTokens: options.services.sessionTokens,
    secondFactors: options.services.secondFactors?.withScope(LOCAL_NETWORK_SCOPE) ?? null,
    allowedOrigins: options.services.config.localAccountsAllowedOrigins,
    perMinute: options.perMinute,
    pseudonyms: options.services.pseudonyms,
    metrics: options.services.metrics
  })
  return local
}
