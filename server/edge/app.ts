import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { accountsProxy } from './upstream/accounts-proxy.js'
import type { FormFlash } from './no-script/form-flash.js'
import { formPosts } from './no-script/form-posts-route.js'
import { formPageAnswerFrom } from './no-script/form-page-answer.js'
import type { PageAnswer } from './page/page-answer.js'
import type { ProxiedRoute } from '../shared/accounts-routes.js'
import type { ServerConfig } from './config.js'
import { grpcWebProxy } from './upstream/grpc-web-proxy.js'
import { health, HEALTH_PATHS } from './health/health.js'
import { checkHost, statedHostName } from './http/host-header.js'
import { loopbackHttpCookies } from './http/loopback-http.js'
import { isFormPostCall } from './no-script/inner-call.js'
import type { HotPathHandler } from './page/hot-path.js'
import { notFoundAndErrors } from './page/not-found.js'
import { pageRoutes } from './page/page-routes.js'
import type { RateLimitSettings } from './http/rate-limit.js'
import { formActionByHost, securityHeaders } from './http/security-headers.js'
import type { AssetStore } from './page/static-files.js'
import type { ProxyTrust } from './http/trusted-proxy.js'
import type { UpstreamProbes } from './upstream/upstream-probes.js'
import { webauthnWellKnown } from './passkeys/webauthn-well-known.js'
import { createChallengeGate } from './challenge/challenge-setup.js'
import { edgeKeys } from './keys/edge-secrets.js'
import { cookieDomainFor } from './sessions/cookie-domain.js'
import { signOutPageAnswer } from './sessions/sign-out-page.js'
import { accountViewAnswer } from './account/account-view.js'
import { localWindowCounts, redisWindowCounts, sharedWindowCounts } from './challenge/window-counts.js'
import { refreshLimit } from './sessions/refresh-limit.js'
import { providerProxy } from './oidc/provider-proxy.js'
import { providerPageLook } from './oidc/provider-page-look.js'
import { join } from 'node:path'
import { socialIconRoutes, type SocialIcons } from './social/social-icons.js'

export interface AppOptions {
  readonly config: ServerConfig
  /** Where rate-limit counts are shared between instances (REDIS_URL); null: counted per instance. */
  readonly redis: Redis | null
  /** The clock the instances share (Redis's, followed by server/shared/shared-clock.ts); Date.now without Redis. */
  readonly now: () => number
  /** Base URL of the accounts service in use (configured or embedded). */
  readonly accountsUpstream: string
  /** The paths proxied under /accounts/: the spec's six, plus the embedded service's own and the passkey calls. */
  readonly accountsRoutes: readonly ProxiedRoute[]
  /** Base URL of the edge auth metadata service in use (configured or embedded). */
  readonly edgeAuthUpstream: string
  /** Headers every call to each upstream carries: the embedded services' secret (server/shared/embedded-secret.ts), none to an own backend. */
  readonly upstreamHeaders: { readonly accounts: Readonly<Record<string, string>>, readonly edgeAuth: Readonly<Record<string, string>> }
  readonly hotPath: HotPathHandler
  /** The flash cookie that carries a form post's page to the GET after its 303. */
  readonly formFlash: FormFlash
  /** TRUST_PROXY as the edge applies it (server/edge/http/trusted-proxy.ts). */
  readonly trust: ProxyTrust | null
  readonly assets: AssetStore
  readonly assetsDir: string
  /** The backends' readiness probes (server/edge/upstream/upstream-probes.ts). */
  readonly probes: UpstreamProbes
  /** Whether the instance is draining before a stop (server.ts's startDraining): /readyz then answers 503. */
  readonly draining: () => boolean
  /** Whether the accounts service behind the edge completes password resets. */
  readonly passwordResetCompletion: boolean
  /** The sign-in page, which also answers a form post (form-posts/). */
  readonly pageAnswer: PageAnswer
  /** The generic social connections' icons, read at start (server/edge/social/social-icons.ts). */
  readonly socialIcons: SocialIcons
}

/**
 * The whole edge as one plugin: cross-cutting plugins first (headers, errors),
 * then the routes — page and assets, health, the two proxies.
 */
export default async function app (fastify: FastifyInstance, options: AppOptions): Promise<void> {
  const { config } = options
  // Once per edge: the rate limits and the challenge derive their keys from the same root.
  const keys = edgeKeys(config.challenge.edgeSecret)
  const rateLimit: RateLimitSettings = {
    perMinute: config.rateLimitPerMinute,
    addressKey: keys.rateLimitPseudonym,
    shared: options.redis === null ? null : { redis: options.redis, log: fastify.log }
  }

  // The counts of refused refreshes and client calls (server/edge/http/refused-calls.ts), shared as the rate limits are.
  const localCounts = localWindowCounts(options.now)
  const refusedCounts = options.redis === null ? localCounts : sharedWindowCounts(redisWindowCounts(options.redis, options.now), localCounts, fastify.log)

  await fastify.register(securityHeaders)
  await fastify.register(notFoundAndErrors)
  // After the security headers, so that the refusal carries them; before every
  // route and rate limit, so that a foreign host reaches nothing and counts nothing.
  fastify.addHook('onRequest', checkHost({
    allowed: config.allowedHosts === null ? null : new Set(config.allowedHosts),
    trust: options.trust,
    exempt: new Set(HEALTH_PATHS)
  }))
  // Safari keeps no Secure cookie on http://localhost: there, and only there, the cookies go without it.
  fastify.addHook('onRequest', loopbackHttpCookies({ trust: options.trust, publicOrigin: config.publicOrigin, skip: isFormPostCall }))

  const answerSignOutPage = signOutPageAnswer({
    productName: config.productName,
    hostnameOf: (request) => statedHostName(request.raw, options.trust),
    formActionFor: formActionByHost((hostname) => cookieDomainFor(hostname, config.cookieDomain), config.redirectAllowedHosts)
  })
  await fastify.register(pageRoutes, {
    hotPath: options.hotPath,
    assets: options.assets,
    assetsDir: options.assetsDir,
    edgeViews: {
      logout: (request, reply) => answerSignOutPage(request, reply, { status: 200, error: null }),
      account: accountViewAnswer({ config, trust: options.trust, flash: options.formFlash, answerPage: formPageAnswerFrom(options.pageAnswer) })
    }
  })
  await fastify.register(socialIconRoutes, { icons: options.socialIcons })
  await fastify.register(health, { probes: options.probes, includeUpstreams: config.readinessIncludesUpstreams, draining: options.draining })
  await fastify.register(webauthnWellKnown, { passkeys: config.passkeys })
  await fastify.register(accountsProxy, {
    prefix: '/accounts',
    upstream: options.accountsUpstream,
    upstreamHeaders: options.upstreamHeaders.accounts,
    routes: options.accountsRoutes,
    timeoutMs: config.upstreamTimeoutMs,
    rateLimit,
    trust: options.trust,
    answerLimitBytes: config.accountsAnswerLimitBytes,
    tokenCookies: { cookieDomain: config.cookieDomain, authHttpOnly: config.authCookieHttpOnly },
    refreshLimit: refreshLimit({ counts: refusedCounts, addressKey: rateLimit.addressKey, perMinute: rateLimit.perMinute, prefix: '/accounts' }),
    domainCheck: config.domainCheckEnforced
      ? { upstream: options.edgeAuthUpstream, upstreamHeaders: options.upstreamHeaders.edgeAuth, timeoutMs: config.upstreamTimeoutMs }
      : null,
    challenge: createChallengeGate({
      settings: config.challenge,
      keys,
      redis: options.redis,
      log: fastify.log,
      prefix: '/accounts',
      servedHosts: config.allowedHosts === null ? null : new Set(config.allowedHosts),
      trust: options.trust,
      now: options.now
    })
  })
  // The embedded provider only: an own accounts backend (ACCOUNTS_URL) has none, and its paths stay 404.
  if (config.accountsUrl === null) {
    await fastify.register(providerProxy, {
      upstream: options.accountsUpstream,
      upstreamHeaders: options.upstreamHeaders.accounts,
      timeoutMs: config.upstreamTimeoutMs,
      trust: options.trust,
      answerLimitBytes: config.accountsAnswerLimitBytes,
      rateLimit,
      counts: refusedCounts,
      look: await providerPageLook(join(options.assetsDir, '..', 'index.html'), config.brand, config.productName),
      hostnameOf: (request) => statedHostName(request.raw, options.trust)
    })
  }
  await fastify.register(formPosts, {
    config,
    passwordResetCompletion: options.passwordResetCompletion,
    trust: options.trust,
    answerPage: formPageAnswerFrom(options.pageAnswer),
    flash: options.formFlash,
    answerSignOutPage
  })
  await fastify.register(grpcWebProxy, {
    upstream: options.edgeAuthUpstream,
    upstreamHeaders: options.upstreamHeaders.edgeAuth,
    timeoutMs: config.upstreamTimeoutMs,
    rateLimit
  })
}
