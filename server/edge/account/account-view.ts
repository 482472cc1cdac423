import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServerConfig } from '../config.js'
import { statedHostName } from '../http/host-header.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'
import { accountsCaller } from '../no-script/accounts-call.js'
import { failureStatus } from '../no-script/answer-status.js'
import type { FormFlash } from '../no-script/form-flash.js'
import type { FormPageAnswer } from '../no-script/form-page-answer.js'
import { cookieDomainFor } from '../sessions/cookie-domain.js'
import { pageTokenCookies } from '../sessions/set-cookie-headers.js'
import { cookieOf } from '../sessions/token-answers.js'
import { fetchAccountState } from './account-state-fetch.js'
import { signedInCalls, type SignedInCalls } from './signed-in-calls.js'

/** The `view` of the signed-in account view (docs/account-view.md). */
export const ACCOUNT_VIEW = 'account'

/**
 * The login view's address that comes back to the account view once signed
 * in: `redirect` is the account view's own address, on this origin, which
 * the login's redirect rules always follow. The language asked for stays.
 */
export function signInFirst (query: string): string {
  const locales = new URLSearchParams(query).get('ui_locales')
  const back = new URLSearchParams({ view: ACCOUNT_VIEW, ...(locales === null ? {} : { ui_locales: locales }) })
  const login = new URLSearchParams({ ...(locales === null ? {} : { ui_locales: locales }), redirect: `/?${back.toString()}` })
  return `/?${login.toString()}`
}

export interface AccountViewOptions {
  readonly config: Pick<ServerConfig, 'cookieDomain' | 'authCookieHttpOnly' | 'passkeys' | 'secondFactor' | 'social'>
  readonly trust: ProxyTrust | null
  /** The flash a form post of the view leaves for the GET after its 303 (server/edge/no-script/form-flash.ts). */
  readonly flash: FormFlash
  /** Answers with the page rendered for a state (server/edge/no-script/form-page-answer.ts). */
  readonly answerPage: FormPageAnswer
}

/**
 * The account's own calls for a request of the visitor: bearing the `auth`
 * cookie's token, refreshed on the way when it has expired, with the new
 * `auth` cookie written as the page would write it (the edge's proxy sets
 * `refresh`, and `auth` with AUTH_COOKIE_HTTPONLY, on the refresh's answer).
 */
export function visitorCalls (request: FastifyRequest, reply: FastifyReply, options: Pick<AccountViewOptions, 'config' | 'trust'>): SignedInCalls {
  const messages = request.server.messagesFor(request, queryOf(request))
  const cookieDomain = cookieDomainFor(statedHostName(request.raw, options.trust), options.config.cookieDomain)
  return signedInCalls({
    callAccounts: accountsCaller(request, reply, messages),
    cookie: (name) => cookieOf(request.headers.cookie, name),
    onRefreshed: (auth) => {
      for (const cookie of pageTokenCookies({ auth }, cookieDomain, options.config.authCookieHttpOnly)) void reply.header('set-cookie', cookie)
    }
  })
}

function queryOf (request: FastifyRequest): string {
  const queryStart = request.url.indexOf('?')
  return queryStart === -1 ? '' : request.url.slice(queryStart + 1)
}

/**
 * GET `?view=account` (docs/account-view.md): without a token cookie, or
 * once the session has ended, a 303 to the login view that comes back here;
 * with one, the account's state fetched from the accounts service
 * (account-state-fetch.ts), rendered and embedded in the page, with what
 * the view's last form post left to say (the flash, then cleared). A service
 * that fails shows the view with its failure text and no state.
 */
export function accountViewAnswer (options: AccountViewOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (request, reply) => {
    const query = queryOf(request)
    const flashed = options.flash.read(request.headers.cookie)
    if (flashed !== null) void reply.header('set-cookie', options.flash.clearing)
    const fetched = await fetchAccountState(visitorCalls(request, reply, options),
      { passkeys: options.config.passkeys !== null, secondFactor: options.config.secondFactor.enabled, social: options.config.social.length > 0 })
    if (fetched.kind === 'signed-out') return reply.code(303).header('location', signInFirst(query)).header('cache-control', 'no-store').send()
    const state = flashed?.state.view === ACCOUNT_VIEW ? flashed.state : null
    if (fetched.kind === 'failed') {
      const messages = request.server.messagesFor(request, query)
      const text = fetched.answer.kind === 'json' && typeof fetched.answer.body.error === 'string' && fetched.answer.status !== 404
        ? fetched.answer.body.error
        : messages.text('error.GENERIC')
      return options.answerPage(request, reply, {
        status: failureStatus(fetched.answer),
        state: { view: ACCOUNT_VIEW, email: '', notice: { kind: 'error', text }, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null },
        account: null
      })
    }
    return options.answerPage(request, reply, { status: state === null ? 200 : flashed!.status, state, account: fetched.account })
  }
}
