import type { FastifyReply, FastifyRequest } from 'fastify'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { callDomainCheck, DomainCheckFailedError } from './domain-check-call.js'
import { REQUEST_ID_HEADER } from '../../shared/logger.js'
import { domainOfEmail, loginEmails, topLevelMembers } from './login-emails.js'
import { SOCIAL_COMPLETION_METHOD } from '../../../common/social/social-providers.js'
import { OutboundCallError, postOnce } from '../upstream/outbound-post.js'
import { logUpstreamFailure } from '../upstream/upstream-failures.js'

/**
 * The login calls the edge checks before proxying them when
 * DOMAIN_CHECK_ENFORCED is true: the password login, the Google login and
 * the end of an SSO login (both `v2/auth/login`), the start of SSO, and both
 * calls of the emailed code (docs/email-codes.md): asking for one (an
 * address refused here gets no email) and signing in with it. Registrations
 * are not login calls (the page does not check them either).
 */
const ENFORCED_LOGIN_PATHS: ReadonlySet<string> = new Set(['v2/login', 'v2/auth/login', 'auth/login/sso', 'email-code/send', 'email-code/login'])

/**
 * A passkey sign-in names no address before its answer: the edge checks the
 * answer's `email` instead ({@link checkPasskeySignInAnswer}).
 */
const PASSKEY_SIGN_IN_PATH = 'passkeys/login'

/**
 * Nor does a social connection's completion (`v2/auth/login` with `login_method` SOCIAL, docs/social-sign-in.md):
 * its body names the provider and a single-use id, and the provider named the address. Its answer is checked,
 * by the answer's `email` where the backend gives one, else the `email` claim of the `auth` token it issued.
 */
function isSocialCompletion (route: string, body: unknown): boolean {
  return route === 'v2/auth/login' && Buffer.isBuffer(body) && topLevelMembers(body.toString('utf8'), 'login_method').includes(SOCIAL_COMPLETION_METHOD)
}

/**
 * The code step that ends a sign-in whose second factor was due (`second-factor/verify`, and the enrolment's
 * confirmation during a login) names no method: the tokens it issues may end a social completion, which was
 * not checked before it was proxied. Its token answers are checked by the `auth` token's `email` claim where
 * there is one; an opaque token passes, as the first factor of every other method was checked already.
 */
const CODE_STEP_PATHS: ReadonlySet<string> = new Set(['second-factor/verify', 'second-factor/enrol/confirm'])

/** The addresses a token answer names: its `email`, else (`byToken`: a social completion's, a code step's) its `auth` token's `email` claims. */
function answerEmails (answer: Readonly<Record<string, unknown>>, byToken: boolean): readonly unknown[] {
  if (answer.email !== undefined || !byToken) return [answer.email]
  const named = loginEmails(undefined, typeof answer.auth === 'string' ? `Bearer ${answer.auth}` : undefined)
  return named.kind === 'named' ? named.emails : []
}

/** A login names one address, a Google login two (body and token); a body naming more is not the page's. */
const MAX_CHECKED_DOMAINS = 4

export interface DomainCheckEnforcement {
  /** Base URL of the domain-check service (EDGE_AUTH_URL or the embedded responder). */
  readonly upstream: string
  /** Sent on every call: the embedded responder's secret (server/shared/embedded-secret.ts); none to EDGE_AUTH_URL. */
  readonly upstreamHeaders?: Readonly<Record<string, string>>
  readonly timeoutMs: number
}

/** What the edge answers instead of the login: a status and the text's catalogue key (said in the request's language). */
export interface LoginRefusal {
  readonly status: number
  readonly key: MessageKey
}

const CHECK_FAILED: LoginRefusal = { status: 503, key: 'error.DOMAIN_AUTH_CHECK_FAILED' }
/** The log line of a login refused because the check failed (docs/operations.md lists it). */
const CHECK_FAILED_LOG_MESSAGE = 'login refused: domain check failed'

/** The refusal the domain check gives `domains`, or null when every one may sign in. */
async function domainRefusal (request: FastifyRequest, domains: readonly string[], options: DomainCheckEnforcement): Promise<LoginRefusal | null> {
  const metrics = request.server.metrics
  for (const domain of domains) {
    const started = performance.now()
    try {
      const authorization = await callDomainCheck({
        upstream: options.upstream, upstreamHeaders: options.upstreamHeaders ?? {}, domain, timeoutMs: options.timeoutMs, requestId: request.id
      })
      metrics?.domainCheck('enforced', authorization === 'unrecognised' ? 'failed' : authorization)
      if (authorization === 'unauthorized') {
        request.log.info({ domain }, 'login refused: domain not authorized')
        return { status: 403, key: 'error.DOMAIN_NOT_AUTHORIZED' }
      }
      if (authorization === 'unrecognised') {
        const facts = { upstream: 'edge-auth', kind: 'unreadable' as const, domain, reason: 'unrecognised authorization value', elapsedMs: Math.round(performance.now() - started) }
        logUpstreamFailure(request, facts, undefined, CHECK_FAILED_LOG_MESSAGE)
        return CHECK_FAILED
      }
    } catch (error) {
      metrics?.domainCheck('enforced', 'failed')
      const failed = error instanceof DomainCheckFailedError ? error : null
      // logUpstreamFailure logs it (error for TLS, with reason "tls") and counts it, as every failed backend call.
      logUpstreamFailure(request, {
        upstream: 'edge-auth',
        kind: failed?.kind ?? 'unreadable',
        domain,
        reason: failed?.reason ?? 'unexpected error',
        ...(failed?.status == null ? {} : { status: failed.status }),
        elapsedMs: Math.round(performance.now() - started)
      }, error, CHECK_FAILED_LOG_MESSAGE)
      return CHECK_FAILED
    }
  }
  return null
}

const routeOf = (request: FastifyRequest, prefix: string): string => (request.routeOptions.url ?? '').slice(prefix.length + 1)

/**
 * A `preHandler` for the accounts proxy's JSON calls (`prefix` is where they
 * are mounted): before a login call in {@link ENFORCED_LOGIN_PATHS} is
 * proxied, the domain of every address it names is checked, as the page
 * would. AUTHORIZED and UNSPECIFIED let it through; UNAUTHORIZED is a 403
 * with the spec's DOMAIN_NOT_AUTHORIZED text; a check that fails, or answers
 * a value this edge does not know, refuses the login (fail closed) with a
 * 503 and DOMAIN_AUTH_CHECK_FAILED. A call naming no usable address goes on:
 * the backend refuses it as usual.
 */
export function enforceDomainCheck (options: DomainCheckEnforcement & { readonly prefix: string }) {
  return async function checkLoginDomains (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (!ENFORCED_LOGIN_PATHS.has(routeOf(request, options.prefix))) return undefined

    const named = loginEmails(Buffer.isBuffer(request.body) ? request.body : undefined, request.headers.authorization)
    if (named.kind === 'malformed') {
      return reply.code(400).send({ error: request.server.messagesFor(request).text('server.emailInvalid') })
    }
    const domains = [...new Set(named.emails.map(domainOfEmail).filter((domain) => domain !== null))]
    if (domains.length > MAX_CHECKED_DOMAINS) {
      return reply.code(400).send({ error: request.server.messagesFor(request).text('server.tooManyEmails') })
    }
    const refusal = await domainRefusal(request, domains, options)
    return refusal === null ? undefined : reply.code(refusal.status).send({ error: request.server.messagesFor(request).text(refusal.key) })
  }
}

/**
 * Revokes a refresh token the edge withheld. The browser never saw it, so
 * this is defence in depth: a failure is logged and the refusal stands.
 */
async function revokeWithheldToken (
  request: FastifyRequest, accounts: { readonly upstream: string, readonly headers: Readonly<Record<string, string>> }, refresh: string, timeoutMs: number
): Promise<void> {
  try {
    const answer = await postOnce(`${accounts.upstream}/token/revoke`, {
      headers: { ...accounts.headers, 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity', [REQUEST_ID_HEADER]: request.id },
      body: Buffer.from(JSON.stringify({ refresh })),
      timeoutMs,
      limitBytes: 16 * 1024
    })
    if (answer.status < 200 || answer.status > 299) request.log.warn({ upstream: 'accounts', status: answer.status }, 'withheld passkey sign-in tokens not revoked')
  } catch (error) {
    request.log.warn({ upstream: 'accounts', reason: error instanceof OutboundCallError ? error.reason : 'unexpected error' }, 'withheld passkey sign-in tokens not revoked')
  }
}

/**
 * For server/edge/upstream/json-answers.ts: checks a passkey sign-in's answer, and a social
 * completion's, before it is passed on. A 2xx answer carrying tokens is passed on only when its
 * `email` is allowed; otherwise the tokens (and the backend's cookies)
 * never reach the browser, the refresh token is revoked at the backend
 * (`token/revoke`, the call the page would make) and the refusal is
 * answered. A token answer without an `email` cannot be checked: refused.
 */
export function checkPasskeySignInAnswer (options: DomainCheckEnforcement & {
  readonly prefix: string
  readonly accountsUpstream: string
  /** Sent on the revocation: the embedded service's secret; none to ACCOUNTS_URL. */
  readonly accountsUpstreamHeaders?: Readonly<Record<string, string>>
}) {
  return async function passkeyAnswerRefusal (request: FastifyRequest, status: number, body: Buffer): Promise<LoginRefusal | null> {
    const route = routeOf(request, options.prefix)
    const social = isSocialCompletion(route, request.body)
    const codeStep = CODE_STEP_PATHS.has(route)
    if ((route !== PASSKEY_SIGN_IN_PATH && !social && !codeStep) || status < 200 || status > 299) return null
    const answer = JSON.parse(body.toString('utf8')) as Record<string, unknown>
    if (typeof answer.auth !== 'string' && typeof answer.refresh !== 'string') return null
    const emails = answerEmails(answer, social || codeStep)
    if (codeStep && emails.length === 0) return null
    const domains = emails.map((email) => typeof email === 'string' ? domainOfEmail(email) : null)
    let refusal: LoginRefusal | null
    if (domains.length === 0 || domains.length > MAX_CHECKED_DOMAINS || domains.includes(null)) {
      request.log.warn({ reason: 'no email in the answer' }, 'login refused: domain check failed')
      refusal = CHECK_FAILED
    } else {
      refusal = await domainRefusal(request, [...new Set(domains as string[])], options)
    }
    if (refusal !== null && typeof answer.refresh === 'string') {
      await revokeWithheldToken(request, { upstream: options.accountsUpstream, headers: options.accountsUpstreamHeaders ?? {} }, answer.refresh, options.timeoutMs)
    }
    return refusal
  }
}
