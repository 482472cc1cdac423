import type { FastifyReply, FastifyRequest } from 'fastify'
import { ERROR_MESSAGES } from '../../common/error-messages.js'
import { callDomainCheck, DomainCheckFailedError } from './domain-check-call.js'
import { domainOfEmail, loginEmails } from './login-emails.js'

/**
 * The login calls the edge checks when DOMAIN_CHECK_ENFORCED is true: the
 * password login, the Google login and the end of an SSO login (both
 * `v2/auth/login`), and the start of SSO. Registrations are not login calls
 * (the page does not check them either); a passkey sign-in names no address
 * before its answer (docs/security.md says why it is left to the page).
 */
export const ENFORCED_LOGIN_PATHS: ReadonlySet<string> = new Set(['v2/login', 'v2/auth/login', 'auth/login/sso'])

/** A login names one address, a Google login two (body and token); a body naming more is not the page's. */
export const MAX_CHECKED_DOMAINS = 4

export interface DomainCheckEnforcement {
  /** Base URL of the domain-check service (EDGE_AUTH_URL or the embedded responder). */
  readonly upstream: string
  readonly timeoutMs: number
}

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
    const route = (request.routeOptions.url ?? '').slice(options.prefix.length + 1)
    if (!ENFORCED_LOGIN_PATHS.has(route)) return undefined

    const named = loginEmails(Buffer.isBuffer(request.body) ? request.body : undefined, request.headers.authorization)
    if (named.kind === 'malformed') {
      return reply.code(400).send({ error: 'The email address is not valid.' })
    }
    const domains = [...new Set(named.emails.map(domainOfEmail).filter((domain) => domain !== null))]
    if (domains.length > MAX_CHECKED_DOMAINS) {
      return reply.code(400).send({ error: 'The request names too many email addresses.' })
    }
    for (const domain of domains) {
      let refusal: { status: number, error: string } | null = null
      try {
        const authorization = await callDomainCheck({ upstream: options.upstream, domain, timeoutMs: options.timeoutMs, requestId: request.id })
        if (authorization === 'unauthorized') {
          request.log.info({ domain }, 'login refused: domain not authorized')
          refusal = { status: 403, error: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED }
        } else if (authorization === 'unrecognised') {
          request.log.warn({ domain, reason: 'unrecognised authorization value' }, 'login refused: domain check failed')
          refusal = { status: 503, error: ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED }
        }
      } catch (error) {
        const reason = error instanceof DomainCheckFailedError ? error.reason : 'unexpected error'
        request.log.warn({ domain, reason, upstream: 'edge-auth' }, 'login refused: domain check failed')
        refusal = { status: 503, error: ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED }
      }
      if (refusal !== null) return reply.code(refusal.status).send({ error: refusal.error })
    }
    return undefined
  }
}
