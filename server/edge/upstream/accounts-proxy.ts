import httpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { rateLimitOptions, type RateLimitSettings } from '../http/rate-limit.js'
import { bufferedBodyParser, forwardReadBody, requireContentType, PROXY_BODY_LIMIT_BYTES } from '../http/request-bodies.js'
import { rejectCrossSiteRequests } from '../http/same-origin-guard.js'
import { logFailure } from './client-gone.js'
import { checkPasskeySignInAnswer, enforceDomainCheck, type DomainCheckEnforcement } from '../domain-check/domain-check-enforcement.js'
import { passOnJsonAnswers } from './json-answers.js'
import { signInCounter } from '../metrics/sign-in-metrics.js'
import { failureKindOf, logUpstreamFailure, upstreamElapsedMs } from './upstream-failures.js'
import {
  forwardRequestHeaders,
  UPSTREAM_FAILURE_STATUS,
  upstreamDispatcherOptions,
  upstreamReplyOptions,
  type ProxyReply,
  type RequestHeaderAllowlist,
  type UpstreamFailure
} from './upstream.js'
import type { ProxiedRoute } from '../../shared/accounts-routes.js'
import { textOf } from '../http/http-error.js'
import englishCatalogue from '../../../common/messages/en.json' with { type: 'json' }
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'
import type { ChallengeGate } from '../challenge/challenge-gate.js'
import { tokenAnswers } from '../sessions/token-answers.js'
import type { RefreshLimit } from '../sessions/refresh-limit.js'

export interface AccountsProxyOptions {
  /** Base URL of the accounts service, without a trailing slash. */
  readonly upstream: string
  /** Sent on every call: the embedded service's secret (server/shared/embedded-secret.ts); none to ACCOUNTS_URL. */
  readonly upstreamHeaders?: Readonly<Record<string, string>>
  readonly routes: readonly ProxiedRoute[]
  readonly timeoutMs: number
  readonly rateLimit: RateLimitSettings
  /** TRUST_PROXY, for the host and scheme the edge states. */
  readonly trust: ProxyTrust | null
  /** ACCOUNTS_ANSWER_LIMIT_BYTES: the largest JSON answer read from the service, as sent and decoded. */
  readonly answerLimitBytes: number
  /** DOMAIN_CHECK_ENFORCED: where the edge checks a login's domain before proxying it; null: it does not. */
  readonly domainCheck: DomainCheckEnforcement | null
  /** The challenge on logins, registrations and resets when risk has risen (challenge/); null: CHALLENGE=off. */
  readonly challenge: ChallengeGate | null
  /** COOKIE_DOMAIN (null: derived per host) and AUTH_COOKIE_HTTPONLY, for the token cookies the edge sets (session-cookies/). */
  readonly tokenCookies: { readonly cookieDomain: string | null, readonly authHttpOnly: boolean }
  /** The limits of `token/refresh` in place of the per-address allowance (server/edge/sessions/refresh-limit.ts); null: it shares the allowance. */
  readonly refreshLimit?: RefreshLimit | null
}

/** A form POST (a signed SAML response; Sign in with Apple's form_post, with its ID token) is larger than any JSON call. */
const FORM_BODY_LIMIT_BYTES = 256 * 1024

/**
 * What the accounts service receives of a request, and nothing else
 * (upstream.ts says what that leaves out, and why):
 * - the body's type and length, and `Accept`;
 * - `User-Agent`, from which the reference service names the browser in its
 *   "was this you?" email (server/reference/known-browsers/browser-names.ts);
 * - `Authorization` on the two Google calls, where the page sends the
 *   Google ID token as a bearer credential, and on the two passkey
 *   registration calls, the second-factor enrolment calls and the other calls
 *   that change an account, prove it again or end its other sessions, where
 *   it sends the account's auth token;
 * - of the cookies, only those the calls read: the SSO state cookie
 *   (`sso_state`, which ties an SSO sign-in to its browser), the known-browser
 *   cookie (`threshold_browser`), `refresh` (token refresh and revocation),
 *   on the passkey calls alone `passkey_challenge` (which ties a
 *   challenge to its browser), on the account changes alone
 *   `threshold_proof` (this browser's fresh proof), on the three sign-in calls and the code
 *   step alone `second_factor_browser` (a browser whose owner asked not to
 *   be asked for codes again), and on the three sign-in calls alone
 *   `oidc_step_up` (an OpenID Connect client asked for a second factor: the
 *   sign-in asks for it even from a remembered browser,
 *   server/reference/oidc/step-up-cookie.ts), and on the emailed code's calls alone
 *   `email_code_browser` (which binds a code to the browser that asked for
 *   it, docs/email-codes.md), and on the social connections' calls and the
 *   completion alone `social_state` (which ties a social sign-in or a link to
 *   its browser, docs/social-sign-in.md). The page's host shares its parent domain's
 *   cookies, and none of the others is the accounts service's business.
 * The edge adds its own X-Forwarded-For, -Proto, -Host and X-Request-Id, and
 * `Accept-Encoding: identity`: it reads every answer, and a plain one costs
 * nothing to read (json-answers.ts still decodes a coded one).
 */
/**
 * The calls that read or change an account, prove it again, or end its
 * sessions (the account view's among them, docs/account-changes.md): they bear
 * the auth token, and the proof cookie of docs/account-changes.md.
 * `email/confirm` is not one: the emailed link's token is all it needs.
 */
const ACCOUNT_CHANGE_PATHS = [
  'passkeys/register/options', 'passkeys/register', 'passkeys/reauthenticate/options', 'passkeys/reauthenticate', 'passkeys/remove',
  // The account view's (docs/account-view.md): the edge calls them for the visitor, with the token.
  'passkeys/list', 'passkeys/rename',
  'second-factor/enrol/start', 'second-factor/enrol/confirm', 'second-factor/remove', 'second-factor/recovery-codes', 'second-factor/forget-browsers',
  'reauthenticate', 'sessions/end-others',
  'account/overview', 'sessions/list', 'sessions/end', 'activity/list', 'password/change', 'email/change', 'account/delete',
  // The account view's sign-in methods (docs/social-sign-in.md): connecting one starts and ends with the account's token.
  'account/social/link/start', 'account/social/link', 'account/social/unlink'
]

/**
 * The calls that set or read the social connections' browser binding (`social_state`, docs/social-sign-in.md):
 * the starts set it, the provider's return legs and the completions read it. Apple's cross-site
 * `form-post` is among them though its Lax cookie does not arrive there: that leg hands over to `continue`, where it does.
 */
const SOCIAL_STATE_PATHS = [
  'auth/login/social', 'auth/social/callback/:provider', 'auth/social/form-post/:provider', 'auth/social/continue', 'v2/auth/login',
  'account/social/link/start', 'account/social/link'
]


/**
 * The calls that read or set the emailed code's browser binding: the send
 * sets it, the sign-in and a fresh proof with a code (`reauthenticate`'s
 * `email_code`) read it.
 */
const EMAIL_CODE_BROWSER_PATHS = ['email-code/send', 'email-code/login', 'reauthenticate']

export const ACCOUNTS_REQUEST_HEADERS: RequestHeaderAllowlist = {
  headers: new Set(['content-type', 'content-length', 'accept', 'user-agent']),
  // Accept-Language: the language the edge chose (the page sends its own, client/http/post-json.ts), for the backend's own texts and emails.
  statesLocale: true,
  onlyOn: {
    // `email-code/send` with `purpose: reauthenticate` sends the code to the bearer's own address (docs/email-codes.md).
    authorization: new Set(['v2/auth/login', 'auth/register', 'email-code/send', ...ACCOUNT_CHANGE_PATHS])
  },
  cookies: new Set(['sso_state', 'threshold_browser', 'refresh']),
  cookiesOnlyOn: {
    passkey_challenge: new Set([
      'passkeys/login/options', 'passkeys/login', 'passkeys/register/options', 'passkeys/register',
      'passkeys/reauthenticate/options', 'passkeys/reauthenticate'
    ]),
    threshold_proof: new Set(ACCOUNT_CHANGE_PATHS),
    second_factor_browser: new Set(['v2/login', 'v2/auth/login', 'email-code/login', 'second-factor/verify']),
    oidc_step_up: new Set(['v2/login', 'v2/auth/login', 'email-code/login']),
    email_code_browser: new Set(EMAIL_CODE_BROWSER_PATHS),
    social_state: new Set(SOCIAL_STATE_PATHS)
  },
  forwarding: true,
  stated: { 'accept-encoding': 'identity' }
}

const JSON_RESPONSE_HEADERS = new Set(['content-type', 'content-length', 'set-cookie', 'retry-after', 'www-authenticate'])
const READ_RESPONSE_HEADERS = new Set([...JSON_RESPONSE_HEADERS, 'location', 'cache-control', 'etag', 'last-modified'])
const FORM_RESPONSE_HEADERS = new Set([...JSON_RESPONSE_HEADERS, 'location'])

/** What the visitor reads when the accounts service failed, by how it failed (catalogue keys): naming no address or port. */
const ACCOUNTS_FAILURE_KEYS: Readonly<Record<UpstreamFailure, MessageKey>> = {
  timeout: 'server.accountsTimeout',
  unavailable: 'server.accountsUnavailable',
  'bad-gateway': 'server.accountsBadGateway',
  unreadable: 'server.accountsUnreadable'
}

/** The same in English (the tests and docs read them). */
export const ACCOUNTS_FAILURE_MESSAGES: Readonly<Record<UpstreamFailure, string>> = {
  timeout: englishCatalogue[ACCOUNTS_FAILURE_KEYS.timeout],
  unavailable: englishCatalogue[ACCOUNTS_FAILURE_KEYS.unavailable],
  'bad-gateway': englishCatalogue[ACCOUNTS_FAILURE_KEYS['bad-gateway']],
  unreadable: englishCatalogue[ACCOUNTS_FAILURE_KEYS.unreadable]
}

const OTHER_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

type PassOn = NonNullable<NonNullable<FastifyHttpProxyOptions['replyOptions']>['onResponse']>

/**
 * reply-from's own way of passing an answer on, with a 5xx logged and
 * counted as the backend's failure, and an answer whose stream then fails
 * (a reset mid-body) as a failure of its kind.
 */
const passOnNotingServerErrors: PassOn = (request, reply, response) => {
  const status = response.statusCode
  const facts = () => ({ upstream: 'accounts', status, elapsedMs: upstreamElapsedMs(request, reply.elapsedTime) })
  // Once each: a 5xx is the backend's failure already, whatever becomes of its body.
  if (status >= 500 && status <= 599) logUpstreamFailure(request, { ...facts(), kind: 'server_error', passedOn: true })
  else response.stream.once('error', (error) => logUpstreamFailure(request, { ...facts(), kind: failureKindOf(error) }, error))
  void reply.send(response.stream)
}

function sendFailure (reply: ProxyReply, failure: UpstreamFailure): void {
  const request = reply.request as FastifyRequest
  void reply.code(UPSTREAM_FAILURE_STATUS[failure]).send({ error: request.server.messagesFor(request).text(ACCOUNTS_FAILURE_KEYS[failure]) })
}


interface ProxyGroupOptions {
  readonly upstream: string
  readonly upstreamHeaders: Readonly<Record<string, string>>
  readonly routes: readonly ProxiedRoute[]
  readonly kind: ProxiedRoute['kind']
  readonly timeoutMs: number
  readonly trust: ProxyTrust | null
  readonly answerLimitBytes: number
  readonly domainCheck: DomainCheckEnforcement | null
  readonly challenge: ChallengeGate | null
  readonly tokenCookies: AccountsProxyOptions['tokenCookies']
  readonly refreshLimit: RefreshLimit | null
}

async function proxyGroup (app: FastifyInstance, { upstream, upstreamHeaders, routes, kind, timeoutMs, trust, answerLimitBytes, domainCheck, challenge, tokenCookies, refreshLimit }: ProxyGroupOptions): Promise<void> {
  // The token cookies come with the JSON calls' answers only: the links and form posts carry no tokens.
  const tokens = tokenAnswers({ ...tokenCookies, prefix: app.prefix, trust })
  if (kind === 'json') {
    app.addHook('onRequest', rejectCrossSiteRequests)
    app.addHook('onRequest', requireContentType(['application/json']))
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: PROXY_BODY_LIMIT_BYTES }, bufferedBodyParser('json'))
    // After the rate limit (an onRequest hook) and the body's checks, before the domain check: a call
    // without its challenge's solution costs the backends nothing. The solution's header is never passed
    // on: ACCOUNTS_REQUEST_HEADERS does not list it.
    if (challenge !== null) {
      app.addHook('preHandler', challenge.preHandler)
      app.addHook('onSend', challenge.onSend)
      app.addHook('onResponse', challenge.onResponse)
    }
    // After the rate limit (an onRequest hook) and the body's checks: a refused call costs the domain service nothing.
    if (domainCheck !== null) app.addHook('preHandler', enforceDomainCheck({ ...domainCheck, prefix: app.prefix }))
    app.addHook('preHandler', tokens.fillRefreshToken)
    // After the token is filled in from the cookie: its limits read it.
    if (refreshLimit !== null) {
      app.addHook('preHandler', refreshLimit.preHandler)
      app.addHook('onResponse', refreshLimit.onResponse)
    }
  } else if (kind === 'form') {
    app.addHook('onRequest', requireContentType(['application/x-www-form-urlencoded']))
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT_BYTES }, bufferedBodyParser('raw'))
  }
  // Sign-ins are counted from the JSON calls' answers, only while metrics are kept.
  const signIns = kind === 'json' && app.metrics !== null ? signInCounter(app.metrics, app.prefix) : null
  if (signIns !== null) app.addHook('onResponse', signIns.onResponse)
  const allowedResponseHeaders = kind === 'json' ? JSON_RESPONSE_HEADERS : kind === 'read' ? READ_RESPONSE_HEADERS : FORM_RESPONSE_HEADERS

  const proxyOptions: FastifyHttpProxyOptions = {
    upstream,
    routes: routes.map((route) => `/${route.path}`),
    httpMethods: [kind === 'read' ? 'GET' : 'POST'],
    // Bodies are read (within the size limit) and checked by the parsers above,
    // then forwarded byte for byte; the library's default would stream them
    // past Fastify's body limit.
    proxyPayloads: false,
    handler: forwardReadBody,
    undici: upstreamDispatcherOptions(timeoutMs),
    disableRequestLogging: true,
    config: kind === 'read' ? { rateLimit: false } : {},
    replyOptions: {
      ...upstreamReplyOptions({
        requestHeaders: forwardRequestHeaders(ACCOUNTS_REQUEST_HEADERS, { prefix: app.prefix, trust, upstreamHeaders }),
        // The reference service's GETs are links (from an email, from an identity
        // provider) whose parameters are in the query; the page's calls carry none.
        keepQuery: kind === 'read',
        allowedResponseHeaders,
        upstreamName: 'accounts',
        onFailure: sendFailure
      }),
      ...(kind === 'json' ? { onResponse: passOnJsonAnswers({
        upstreamName: 'accounts',
        limitBytes: answerLimitBytes,
        onFailure: sendFailure,
        answerForBrowser: tokens.answerForBrowser,
        ...(signIns === null && challenge === null
          ? {}
          : { onAnswer: (request: FastifyRequest, answer: Readonly<Record<string, unknown>>) => { signIns?.noteAnswer(request, answer); challenge?.noteAnswer(request, answer) } }),
        ...(domainCheck === null ? {} : { refusalOf: checkPasskeySignInAnswer({ ...domainCheck, prefix: app.prefix, accountsUpstream: upstream, accountsUpstreamHeaders: upstreamHeaders }) })
      }) } : {}),
      // The links and form posts are passed on as they are; a 5xx among them is logged and counted too.
      ...(kind !== 'json' ? { onResponse: passOnNotingServerErrors } : {})
    }
  }
  await app.register(httpProxy, proxyOptions)
}

/**
 * `/accounts/<path>` → `${upstream}/<path>` for the listed routes only. Other
 * methods on a listed path answer 405 and unlisted paths 404, without a call
 * to the backend. State-changing calls are same-origin, JSON, at most 16 KiB
 * and rate limited per client address.
 */
export async function accountsProxy (app: FastifyInstance, options: AccountsProxyOptions): Promise<void> {
  const refreshLimit = options.refreshLimit ?? null
  await app.register(rateLimit, rateLimitOptions(options.rateLimit, 'accounts', refreshLimit?.exempt))

  app.setErrorHandler(async (error: { statusCode?: number, message?: string }, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) logFailure(request, 'error', error, 'accounts proxy failed')
    const messages = app.messagesFor(request)
    return reply.code(status).send({ error: status === 500 ? messages.text('server.failure') : textOf(error, messages) })
  })

  for (const kind of ['json', 'form', 'read'] as const) {
    const routes = options.routes.filter((route) => route.kind === kind)
    if (routes.length === 0) continue
    await app.register(proxyGroup, {
      upstream: options.upstream,
      upstreamHeaders: options.upstreamHeaders ?? {},
      routes,
      kind,
      timeoutMs: options.timeoutMs,
      trust: options.trust,
      answerLimitBytes: options.answerLimitBytes,
      domainCheck: options.domainCheck,
      challenge: options.challenge,
      tokenCookies: options.tokenCookies,
      refreshLimit
    })
  }

  for (const route of options.routes) {
    const allowed = route.kind === 'read' ? 'GET, HEAD' : 'POST'
    const methods = route.kind === 'read'
      ? ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
      : [...OTHER_METHODS]
    app.route({
      method: methods,
      url: `/${route.path}`,
      config: { rateLimit: false },
      handler: async (request, reply) =>
        reply.code(405).header('allow', allowed).send({ error: app.messagesFor(request).text('server.methodNotAllowed') })
    })
  }

  app.all('/*', { config: { rateLimit: false } }, async (request, reply) =>
    reply.code(404).send({ error: app.messagesFor(request).text('server.notFound') }))
}
