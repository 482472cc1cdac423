import httpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import { isLoopbackHost } from '../../../common/http/hosts.js'
import { OIDC_DISCOVERY_PATH, OIDC_PATH_PREFIX, PROVIDER_PAGE_TYPE } from '../../shared/oidc/provider-pages.js'
import { contentCodings, readDecodedBody } from '../../shared/content-codings.js'
import type { WindowCounts } from '../challenge/window-counts.js'
import { rateLimitBucketName, rateLimitOptions, type RateLimitSettings } from '../http/rate-limit.js'
import { refusedCalls } from '../http/refused-calls.js'
import { bufferedBodyParser, forwardReadBody, mediaType, PROXY_BODY_LIMIT_BYTES } from '../http/request-bodies.js'
import { rejectCrossSiteRequests } from '../http/same-origin-guard.js'
import { HttpError } from '../http/http-error.js'
import { NO_STORE, STATIC_SECURITY_HEADERS } from '../http/security-headers.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'
import { clientAddress, rateLimitKey } from '../http/client-address.js'
import { logUpstreamFailure, upstreamElapsedMs, failureKindOf } from '../upstream/upstream-failures.js'
import { forwardRequestHeaders, UPSTREAM_FAILURE_STATUS, upstreamDispatcherOptions, upstreamReplyOptions, type ProxyReply, type RequestHeaderAllowlist, type UpstreamFailure } from '../upstream/upstream.js'
import { clientIdOf } from './client-id.js'
import { providerPageFrom, renderProviderPage, type ProviderPageLook } from './provider-page.js'

/** Every method: the provider answers what it does not take itself (405, or its own error). */
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** The provider's endpoints that authenticate a client: limited per client, not per address. */
const CLIENT_CALLS: ReadonlySet<string> = new Set(['/oidc/token', '/oidc/token/revocation', '/oidc/token/introspection'])

/**
 * Calls of one client a minute to those endpoints, as a multiple of
 * RATE_LIMIT_PER_MINUTE: a client's server exchanges the codes of all its
 * users, from one address or many.
 */
export const CLIENT_CALLS_FACTOR = 20

/** The form posts of the provider's own pages, which only the page's origin may make. */
const PAGE_FORM = /^\/oidc\/(interaction\/[^/]+\/consent|session\/end\/confirm)$/

/**
 * The cookies the provider reads: its own three (host-only, with their
 * signatures) and the page's session, which decides whether a visitor
 * passes straight through (docs/architecture.md, the reference service). The parent domain's
 * other cookies are none of its business.
 */
const PROVIDER_COOKIES = ['oidc_session', 'oidc_interaction', 'oidc_interaction_resume']
const PROVIDER_REQUEST_HEADERS: RequestHeaderAllowlist = {
  // The two Access-Control-Request headers: a browser's CORS preflight, which the provider answers.
  headers: new Set(['content-type', 'content-length', 'authorization', 'origin', 'dpop', 'accept', 'user-agent', 'access-control-request-method', 'access-control-request-headers']),
  onlyOn: {},
  cookies: new Set([...PROVIDER_COOKIES, ...PROVIDER_COOKIES.map((name) => `${name}.sig`), 'auth', 'refresh']),
  forwarding: true,
  stated: { 'accept-encoding': 'identity' }
}

/**
 * The provider's answer headers passed on, with the CORS answer headers (Fetch standard, "HTTP responses"), which it
 * sets itself: the token and userinfo endpoints are called from other origins.
 */
const RESPONSE_HEADERS = new Set(['location', 'set-cookie', 'cache-control', 'pragma', 'www-authenticate', 'content-type', 'content-length', 'dpop-nonce', 'vary',
  'access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers',
  'access-control-expose-headers', 'access-control-max-age', 'access-control-allow-private-network'])

/** The page's own `form-action` on a provider page with a form: see providerPageSecurityPolicy. */
const LOOPBACK_FORM_ACTION = 'http://localhost:* http://127.0.0.1:*'

/**
 * A provider page's CSP: the static one (no script at all), with the
 * brand's `<style>` by its hash and, on a page with a form, `form-action`
 * open to https: a consent's "allow" or a logout ends, after the provider's
 * own redirects, at a client's registered redirect URI, on any origin, and
 * browsers hold those redirects to `form-action`. The provider redirects only
 * to URIs registered exactly (OIDC_CLIENTS), and the page runs no
 * script that could post a form of its own.
 */
function providerPageSecurityPolicy (styleSources: string, withForm: boolean, loopback: boolean): string {
  let policy = STATIC_SECURITY_HEADERS['content-security-policy'] ?? ''
  if (styleSources !== '') policy = policy.replace("style-src 'self'", `style-src 'self' ${styleSources}`)
  if (withForm) policy = policy.replace("form-action 'self'", `form-action 'self' https:${loopback ? ` ${LOOPBACK_FORM_ACTION}` : ''}`)
  return policy
}

export interface ProviderProxyOptions {
  /** The embedded reference service's base URL: never an own ACCOUNTS_URL backend, which has no provider. */
  readonly upstream: string
  /** The embedded service's secret (server/shared/embedded-secret.ts). */
  readonly upstreamHeaders: Readonly<Record<string, string>>
  readonly timeoutMs: number
  readonly trust: ProxyTrust | null
  /** ACCOUNTS_ANSWER_LIMIT_BYTES: the largest provider page read. */
  readonly answerLimitBytes: number
  readonly rateLimit: RateLimitSettings
  /** Where refused client calls are counted (server/edge/http/refused-calls.ts). */
  readonly counts: WindowCounts
  /** The brand and CSS of the provider's pages, and their `<style>`s' hashes for the CSP, space-separated. */
  readonly look: ProviderPageLook & { readonly styleSources: string }
  /** The host name a request is for, as the edge states it. */
  readonly hostnameOf: (request: FastifyRequest) => string
}

type PassOn = NonNullable<NonNullable<FastifyHttpProxyOptions['replyOptions']>['onResponse']>

/**
 * The edge's own answer when the provider's cannot be passed on: plain
 * text, its status the failure's, nothing of what the provider sent.
 */
function sendPlainFailure (reply: ProxyReply, failure: UpstreamFailure): void {
  const request = reply.request as FastifyRequest
  for (const name of ['content-type', 'content-length', 'set-cookie', 'location', 'cache-control']) reply.removeHeader(name)
  void reply.code(UPSTREAM_FAILURE_STATUS[failure]).header('content-type', 'text/plain; charset=utf-8').header('cache-control', NO_STORE)
    .send(request.server.messagesFor(request).text('server.accountsUnreadable'))
}

/**
 * The provider's answers: a ProviderPage (PROVIDER_PAGE_TYPE) is rendered
 * as the page it stands for and never passed on; anything else passes as
 * it came, within the header allowlist.
 */
function passOnProviderAnswers (options: ProviderProxyOptions): PassOn {
  return (request, reply, response) => {
    const stream = response.stream
    if (reply.sent) {
      stream.resume()
      return
    }
    const headers = (response as unknown as { readonly headers: IncomingHttpHeaders }).headers
    const status = reply.statusCode
    const facts = () => ({ upstream: 'accounts', status, elapsedMs: upstreamElapsedMs(reply.request, reply.elapsedTime) })
    if (mediaType(headers['content-type']) !== PROVIDER_PAGE_TYPE) {
      if (status >= 500) logUpstreamFailure(reply.request, { ...facts(), kind: 'server_error', passedOn: true })
      else stream.once('error', (error) => logUpstreamFailure(reply.request, { ...facts(), kind: failureKindOf(error) }, error))
      void reply.send(stream)
      return
    }
    const refuse = (reason: string, error?: unknown): void => {
      logUpstreamFailure(reply.request, { ...facts(), kind: 'server_error', contentType: PROVIDER_PAGE_TYPE, reason, failure: 'unreadable' }, error)
      sendPlainFailure(reply, 'unreadable')
    }
    let codings: string[]
    try {
      codings = contentCodings(headers['content-encoding'])
    } catch {
      stream.destroy()
      refuse('unknown coding')
      return
    }
    readDecodedBody(stream, codings, options.answerLimitBytes).then((body) => {
      let page
      try {
        page = providerPageFrom(JSON.parse(body.toString('utf8')))
      } catch {
        page = null
      }
      if (page === null) {
        refuse('not a provider page')
        return
      }
      const freeRequest = request as FastifyRequest
      const messages = freeRequest.server.messagesFor(freeRequest, page.uiLocales === null ? undefined : `ui_locales=${encodeURIComponent(page.uiLocales)}`)
      const html = renderProviderPage(page, messages, options.look)
      const withForm = page.page === 'consent' || page.page === 'logout'
      reply.removeHeader('content-length')
      void reply
        .header('content-security-policy', providerPageSecurityPolicy(options.look.styleSources, withForm, isLoopbackHost(options.hostnameOf(freeRequest))))
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', NO_STORE)
        .header('vary', 'Accept-Language')
        .send(html)
    }, (error: unknown) => {
      refuse('unreadable body', error)
    })
  }
}

/**
 * The embedded provider's paths (server/shared/oidc/provider-pages.ts):
 * discovery and everything under `/oidc/`, any method, passed to the
 * reference service under the same path with its secret and the client's
 * address. The token, userinfo and revocation endpoints are called by other
 * origins and by servers: no same-origin guard there (the provider answers
 * CORS itself); the consent and logout forms, which only the provider's
 * pages post, are guarded. POSTs are rate limited: the client endpoints per
 * client (CLIENT_CALLS_FACTOR) with refused client calls bounded per
 * address, the rest per address.
 */
export async function providerProxy (app: FastifyInstance, options: ProviderProxyOptions): Promise<void> {
  const { rateLimit: settings } = options
  const isClientCall = (request: FastifyRequest): boolean => request.method === 'POST' && CLIENT_CALLS.has(request.url.split('?', 1)[0]!)
  // A client call the provider refuses (a wrong secret, a made-up id, a guessed code) counts against its
  // address: guessing stays bounded, and anyone can name a public client's id. Checked before the
  // per-client count, so that an address already refused spends nothing of a client's allowance.
  const refusedClients = refusedCalls({
    group: 'oidc-client',
    counts: options.counts,
    addressKey: settings.addressKey,
    limits: { unaccepted: settings.perMinute, all: Number.POSITIVE_INFINITY },
    // A call over its client's allowance (429) is the client's busy server, not a guess.
    accepted: (status) => (status >= 200 && status <= 399) || status === 429
  })
  app.addHook('preHandler', async (request, reply) => {
    if (!isClientCall(request)) return undefined
    return await refusedClients.refuse(request, reply) ? reply : undefined
  })
  app.addHook('onResponse', async (request, reply) => {
    if (isClientCall(request)) await refusedClients.noteAnswer(request, reply.statusCode)
  })
  await app.register(rateLimit, {
    ...rateLimitOptions(settings, 'oidc'),
    // The client's id is in the body: counted once it is read.
    hook: 'preHandler',
    allowList: (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS',
    keyGenerator: (request: FastifyRequest) => {
      const clientId = isClientCall(request) ? clientIdOf(request) : null
      return rateLimitBucketName(settings.addressKey, clientId === null ? rateLimitKey(clientAddress(request)) : `oidc-client:${clientId}`)
    },
    max: (request: FastifyRequest) => isClientCall(request) && clientIdOf(request) !== null ? settings.perMinute * CLIENT_CALLS_FACTOR : settings.perMinute,
    onExceeded: (request: FastifyRequest) => request.server.metrics?.rateLimited('accounts')
  })
  app.addHook('onRequest', async (request) => {
    if (request.method === 'POST' && PAGE_FORM.test(request.url.split('?', 1)[0]!)) await rejectCrossSiteRequests(request)
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: PROXY_BODY_LIMIT_BYTES }, bufferedBodyParser('raw'))
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: PROXY_BODY_LIMIT_BYTES }, bufferedBodyParser('json'))
  app.addContentTypeParser('*', (_request, _payload, done) => done(new HttpError(415, 'server.bodyType', { types: 'application/x-www-form-urlencoded, application/json' })))

  await app.register(httpProxy, {
    upstream: options.upstream,
    routes: [OIDC_DISCOVERY_PATH, `${OIDC_PATH_PREFIX}*`],
    httpMethods: [...ALL_METHODS],
    proxyPayloads: false,
    // The provider's redirects name its own paths, which are the same on the page's origin.
    internalRewriteLocationHeader: false,
    handler: forwardReadBody,
    undici: upstreamDispatcherOptions(options.timeoutMs),
    disableRequestLogging: true,
    replyOptions: {
      ...upstreamReplyOptions({
        requestHeaders: forwardRequestHeaders(PROVIDER_REQUEST_HEADERS, { prefix: '', trust: options.trust, upstreamHeaders: options.upstreamHeaders }),
        keepQuery: true,
        allowedResponseHeaders: RESPONSE_HEADERS,
        upstreamName: 'accounts',
        onFailure: sendPlainFailure
      }),
      onResponse: passOnProviderAnswers(options)
    }
  })
}
