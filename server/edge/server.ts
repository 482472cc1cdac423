import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { createServer as createHttpServer, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import type { PageRenderer } from '../../common/page/page-render.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { ACCOUNT_ROUTES, EMAIL_CODE_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, withRoutes, type ProxiedRoute } from '../shared/accounts-routes.js'
import { SSO_DISCOVERY_ROUTES } from '../shared/accounts-routes.js'
import app from './app.js'
import { loadBrandAssets } from './brand/brand-assets.js'
import { pageBackground, pageLogo, pageLook } from './brand/brand-page.js'
import type { ServerConfig } from './config.js'
import { cookieDomainFor } from './sessions/cookie-domain.js'
import { embeddedSecretHeaders } from '../shared/embedded-secret.js'
import { judgeHost, statedHostName } from './http/host-header.js'
import { createFormFlash, flashedPageFrom } from './no-script/form-flash.js'
import { isLoopbackHttpRequest } from './http/loopback-http.js'
import { createHotPath } from './page/hot-path.js'
import { createEdgeMetrics, readPackageVersion, type EdgeMetrics } from './metrics/metrics.js'
import { countedHotPath, countFastifyRequests } from './metrics/request-metrics.js'
import { logCompletedRequests, loggerOptions, REQUEST_ID_HEADER, requestIdFor } from '../shared/logger.js'
import { answerClientError, refuseExpectation } from './http/node-answers.js'
import { answerFrameworkError } from './page/not-found.js'
import { loadMessageCatalogues } from './languages/message-catalogues.js'
import { PageTemplate } from './page/page.js'
import { messagesForRequests } from './languages/request-messages.js'
import { createPageAnswer, type PageAnswer } from './page/page-answer.js'
import { PageMarkup } from './page/page-markup.js'
import { CompressedPages } from './page/compressed-pages.js'
import { loadPageRenderer } from './page/page-renderer.js'
import { PROXY_BODY_LIMIT_BYTES } from './http/request-bodies.js'
import { formActionByHost } from './http/security-headers.js'
import { AssetStore } from './page/static-files.js'
import { fromTrustedProxy, proxyTrust } from './http/trusted-proxy.js'
import { PROVIDER_ORIGINS } from './challenge/challenge-config.js'
import { followRedisClock } from './redis/redis-clock.js'
import { SOCIAL_ROUTES } from '../shared/accounts-routes.js'
import { loadSocialIcons, type SocialIcons } from './social/social-icons.js'
import { createUpstreamProbes, probedUpstreams, type ProbeListener } from './upstream/upstream-probes.js'

/**
 * package.json, for the version the metrics state. It sits two folders up both
 * from this source file and from the built bundle (dist/server/edge.cjs), and
 * the image keeps it beside dist/.
 */
const PACKAGE_JSON = new URL('../../package.json', import.meta.url)

/**
 * Connection timeouts. Headers must arrive within 15 s and a whole request
 * within 30 s (slow senders are cut off); idle keep-alive connections stay open
 * 72 s, longer than the usual 60 s idle timeout of load balancers, so that the
 * balancer, not the edge, closes them and never reuses a closing connection.
 */
interface ConnectionTimeouts {
  readonly headersMs: number
  readonly requestMs: number
  readonly keepAliveMs: number
}

const DEFAULT_TIMEOUTS: ConnectionTimeouts = Object.freeze({ headersMs: 15_000, requestMs: 30_000, keepAliveMs: 72_000 })

export interface CreateServerOptions {
  readonly config: ServerConfig
  /** The build's dist/public folder. */
  readonly publicDir: string
  readonly accountsUpstream: string
  readonly accountsRoutes: readonly ProxiedRoute[]
  readonly edgeAuthUpstream: string
  /** Whether the accounts service behind the edge completes password resets. */
  readonly passwordResetCompletion: boolean
  /**
   * The embedded reference services' secret (server/shared/embedded-secret.ts),
   * sent on every call to an upstream that is theirs (no ACCOUNTS_URL, no
   * EDGE_AUTH_URL); null or absent: none is sent.
   */
  readonly embeddedSecret?: string | null
  readonly logger?: FastifyServerOptions['logger']
  readonly timeouts?: Partial<ConnectionTimeouts>
  /** Told every readiness probe's result, beside the metrics' probe gauges; none by default. */
  readonly onProbe?: ProbeListener
  /**
   * The metrics to record into while METRICS_PORT is set; by default a new
   * registry with the process's own figures. Tests building several edges
   * pass one without them.
   */
  readonly metrics?: EdgeMetrics
  /**
   * Builds the page renderer for the page's runtime configuration; by default
   * the build's dist/server/page-renderer.cjs, beside the public folder. Tests
   * without a build pass client/server-render.tsx's createPageRenderer.
   */
  readonly pageRenderer?: (config: RuntimeConfig) => PageRenderer
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The sign-in page, for routes that answer with it (a form post's state: server/edge/page/page-answer.ts). */
    pageAnswer: PageAnswer
    /**
     * Starts the drain before a stop (run-edge.ts): /readyz answers 503 and
     * every answer closes its connection. Idle connections are left alone
     * until the close: one closed under the balancer as it sends a POST on it
     * fails that POST (balancers do not retry a POST they sent), and those it
     * uses during the drain close cleanly after their answer.
     */
    startDraining: () => void
  }
}

/**
 * The page's runtime configuration; `cookieDomain` is COOKIE_DOMAIN here, and
 * the page for each host gets the one decided for that host (server/edge/page/page.ts).
 */
function runtimeConfigFor (config: ServerConfig, passwordResetCompletion: boolean, socialIcons: SocialIcons): RuntimeConfig {
  return {
    productName: config.productName,
    supportEmail: config.supportEmail,
    googleClientId: config.googleClientId,
    googleDisabledHostnames: config.googleDisabledHostnames,
    redirectAllowedHosts: config.redirectAllowedHosts,
    localAccountsAllowedHosts: config.localAccountsAllowedHosts,
    cookieDomain: config.cookieDomain,
    authCookieHttpOnly: config.authCookieHttpOnly,
    passwordResetCompletion,
    domainCheckTimeoutMs: config.domainCheckTimeoutMs,
    passkeyRpId: config.passkeys?.rpId ?? null,
    secondFactor: config.secondFactor.enabled,
    secondFactorRememberBrowser: config.secondFactor.rememberBrowser,
    emailCodes: config.emailCodes.enabled,
    socialProviders: socialIcons.providers,
    ssoDiscovery: config.ssoDiscovery,
    passwordMinLength: config.passwordMinLength,
    logo: pageLogo(config.brand),
    background: pageBackground(config.brand)
  }
}

/** Builds the edge server, ready to listen (or to be driven with `inject`). */
export async function createServer (options: CreateServerOptions): Promise<FastifyInstance> {
  const { config } = options
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts }
  const assetsDir = join(options.publicDir, 'assets')
  // Read before the page's settings, which name each icon by its bytes' digest.
  const socialIcons = loadSocialIcons(config.social)
  const runtimeConfig = runtimeConfigFor(config, options.passwordResetCompletion, socialIcons)
  // Loaded at start, as the template is read: a missing build fails here, with a message, not at the first page view.
  const renderer = options.pageRenderer === undefined
    ? loadPageRenderer(join(options.publicDir, '..', 'server', 'page-renderer.cjs'), runtimeConfig)
    : options.pageRenderer(runtimeConfig)
  const catalogues = await loadMessageCatalogues(config.messageOverrides, { google: config.googleClientId !== null }, { pseudoLocales: config.pseudoLocales })
  const [assets, pages] = await Promise.all([
    // build.mjs writes the client's source maps beside dist/public, where nothing else serves them.
    AssetStore.load(assetsDir, config.sourceMapsPublic ? join(options.publicDir, '..', 'client-sourcemaps') : null,
      [...await loadBrandAssets(config.brand), ...catalogues.laterTextAssets]),
    PageTemplate.load(join(options.publicDir, 'index.html'), runtimeConfig,
      (hostname) => cookieDomainFor(hostname, config.cookieDomain), catalogues, pageLook(config.brand))
  ])
  const trust = proxyTrust(config.trustProxy)
  // Without METRICS_PORT nothing is recorded: no registry, no timer, no check on the hot path.
  const metrics = config.metricsPort === null ? null : options.metrics ?? createEdgeMetrics({ version: readPackageVersion(PACKAGE_JSON) })
  const pageAnswer = createPageAnswer({
    pages,
    markup: new PageMarkup(renderer),
    renderer,
    localAccountsAllowedHosts: config.localAccountsAllowedHosts,
    compressed: new CompressedPages(),
    hostnameOf: (request) => statedHostName(request, trust),
    formActionFor: formActionByHost((hostname) => cookieDomainFor(hostname, config.cookieDomain), config.redirectAllowedHosts),
    catalogues,
    defaultLocale: config.defaultLocale,
    challengeProviderOrigins: config.challenge.provider === null ? null : PROVIDER_ORIGINS[config.challenge.provider.kind],
    provider: config.accountsUrl === null
  })
  const formFlash = createFormFlash()
  const hotPath = createHotPath({ pages: pageAnswer, assets, flashedPage: flashedPageFrom(pageAnswer, formFlash, (request) => isLoopbackHttpRequest(request, trust, config.publicOrigin)) })
  // Counted here on the listener; the page routes (inject, and requests the listener leaves to Fastify) are counted by Fastify's hook.
  const listenerHotPath = metrics === null ? hotPath : countedHotPath(hotPath, metrics)

  const allowedHosts = config.allowedHosts === null ? null : new Set(config.allowedHosts)

  let closing = false
  let draining = false
  const unanswered = new Set<ServerResponse>()
  const fastify = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel),
    trustProxy: trust ?? false,
    bodyLimit: PROXY_BODY_LIMIT_BYTES,
    requestIdHeader: false,
    // A request read while the server closes was sent by a balancer that has
    // not yet seen the listener go: it is answered (closing its connection)
    // rather than refused with a 503 the balancer would pass on for a POST.
    return503OnClosing: false,
    // A request id is the load balancer's to give: a client's own is ignored.
    genReqId: (request) => requestIdFor(fromTrustedProxy(trust, request) ? request.headers[REQUEST_ID_HEADER] : undefined),
    // One line per answered request comes from logCompletedRequests instead.
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    serverFactory: (handler) => createHttpServer({
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // Node enforces the two limits above only when it sweeps its connections,
      // every 30 s by default: a slow sender would hold a connection for up to
      // 30 s past its limit. Sweep at least every second.
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs, timeouts.requestMs)
    }, (request, response) => {
      // Fastify refuses a bad Host (400) or one the edge does not serve (421), with its headers.
      // From the drain on, every answer, the hot path's and hijacked ones too,
      // says Connection: close and Node closes the connection after it: the
      // balancer never sends a request on a connection the edge is closing
      // (it would fail a POST, which balancers do not retry), and a
      // connection in flight at the close does not hold the server open.
      if (draining) response.setHeader('connection', 'close')
      // The hot path answers within this call; Fastify's routes may answer
      // later, so a request the drain finds unanswered is told to close too.
      if (!closing && judgeHost(request, allowedHosts, trust) === 'served' && listenerHotPath(request, response)) return
      if (!draining) {
        unanswered.add(response)
        response.once('close', () => unanswered.delete(response))
      }
      handler(request, response)
    }).on('checkExpectation', refuseExpectation)
  })
  if (allowedHosts === null) {
    fastify.log.warn('neither ALLOWED_HOSTS nor PUBLIC_URL is set: any Host is accepted and passed on to the backends as X-Forwarded-Host')
  }
  logCompletedRequests(fastify)
  const accountsRoutes = withRoutes(options.accountsRoutes, config.passkeys !== null && PASSKEY_ROUTES,
    config.secondFactor.enabled && SECOND_FACTOR_ROUTES, config.emailCodes.enabled && EMAIL_CODE_ROUTES, ACCOUNT_ROUTES,
    config.social.length > 0 && SOCIAL_ROUTES, config.ssoDiscovery && SSO_DISCOVERY_ROUTES)
  fastify.decorate('metrics', metrics)
  fastify.decorate('pageAnswer', pageAnswer)
  fastify.decorate('messagesFor', messagesForRequests(catalogues, config.defaultLocale))
  if (metrics !== null) countFastifyRequests(fastify, metrics, new Set(accountsRoutes.map((route) => route.path)))
  fastify.addHook('preClose', async () => {
    closing = true
    draining = true
  })
  fastify.decorate('startDraining', () => {
    if (draining) return
    draining = true
    for (const response of unanswered) if (!response.headersSent) response.setHeader('connection', 'close')
  })


  // One Redis connection for the whole edge (REDIS_URL), closed with it.
  // ioredis takes a fifth of a second to load: only instances sharing their limits pay for it.
  const redis = config.redisUrl === null
    ? null
    : (await import('./redis/redis-client.js')).createRedisConnection(config.redisUrl, fastify.log)
  if (redis !== null) {
    fastify.addHook('onClose', async () => redis.close())
    await redis.connect()
  }
  // Challenges one instance issues are checked by another, and their counts kept in Redis's time windows:
  // by Redis's clock, so that an instance whose own clock is off judges them as the others do.
  const clock = redis === null ? null : await followRedisClock(redis.client, fastify)

  // Never to an own backend: the secret is the embedded services' alone.
  const toEmbedded = embeddedSecretHeaders(options.embeddedSecret ?? null)
  const upstreamHeaders = { accounts: config.accountsUrl === null ? toEmbedded : {}, edgeAuth: config.edgeAuthUrl === null ? toEmbedded : {} }
  const probes = createUpstreamProbes({
    upstreams: probedUpstreams(config, { accounts: options.accountsUpstream, edgeAuth: options.edgeAuthUpstream }, toEmbedded),
    log: fastify.log,
    onProbe (upstream, result) {
      metrics?.upstreamProbe(upstream === 'accounts' ? 'accounts' : 'edge_auth', result.up, result.durationMs / 1000)
      options.onProbe?.(upstream, result)
    }
  })
  metrics?.beforeScrape(async () => await probes.check())
  await fastify.register(app, {
    config,
    redis: redis?.client ?? null,
    now: clock === null ? Date.now : () => clock.now(),
    accountsUpstream: options.accountsUpstream,
    accountsRoutes,
    edgeAuthUpstream: options.edgeAuthUpstream,
    upstreamHeaders,
    hotPath,
    formFlash,
    trust,
    assets,
    assetsDir,
    probes,
    draining: () => draining,
    passwordResetCompletion: options.passwordResetCompletion,
    pageAnswer,
    socialIcons
  })
  return fastify
}
