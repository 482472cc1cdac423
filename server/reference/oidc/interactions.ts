import type { FastifyReply, FastifyRequest } from 'fastify'
import type Provider from 'oidc-provider'
import type { InteractionResults } from 'oidc-provider'
import { PROVIDER_PAGE_TYPE, type ProviderPage } from '../../shared/oidc/provider-pages.js'
import type { TokenService } from '../sessions/tokens.js'
import type { AccountStore } from '../store/account-store.js'
import { decideLogin, requestedAcrs, type LoginRequest } from './login-decision.js'
import type { OidcClientRegistry } from './oidc-clients.js'
import { livePageSession } from './page-session.js'
import { interactionPath } from './embedded-provider.js'
import type { StepUpCookies } from './step-up-cookie.js'

/** The consent form's largest body: one field. */
const CONSENT_BODY_MAX_BYTES = 1024

/** The scopes a consent page may list, in the order the page's catalogue knows them. */
const CONSENT_SCOPES = ['openid', 'email', 'profile', 'offline_access']

export interface InteractionParts {
  readonly store: AccountStore
  readonly tokens: TokenService
  readonly clients: OidcClientRegistry
  readonly stepUp: StepUpCookies
  readonly now: () => number
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>

function text (value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= 500 ? value : null
}

/**
 * What the interaction's authorization request asks of the sign-in. Its start
 * is stated on the service's clock (the store's, which sign-in times are
 * kept by): oidc-provider dates the interaction by this process's own, so
 * its age is what carries over.
 */
function loginRequest (details: Interaction, nowSeconds: number): LoginRequest {
  const params = details.params
  let claims: unknown
  try {
    claims = typeof params.claims === 'string' ? JSON.parse(params.claims) : undefined
  } catch {
    claims = undefined
  }
  const { acrs, essential } = requestedAcrs(params.acr_values, claims)
  const maxAge = params.max_age === undefined ? null : Number(params.max_age)
  return {
    promptLogin: (text(params.prompt) ?? '').split(' ').includes('login'),
    maxAge: maxAge !== null && Number.isSafeInteger(maxAge) ? maxAge : null,
    acrs,
    acrEssential: essential,
    startedAt: nowSeconds - Math.max(0, Math.floor(Date.now() / 1000) - details.iat)
  }
}

/**
 * The page session the interaction first sent the visitor to the page from
 * (LoginRequest.sentToPageFrom), kept in the interaction's `lastSubmission`,
 * which this service never merges into a result (`mergeWithLastSubmission: false`).
 */
function sentToPageFromOf (details: Interaction): { sessionId: string | null } | undefined {
  const kept = (details.lastSubmission as { sentToPageFrom?: { sessionId?: unknown } | null } | undefined)?.sentToPageFrom
  if (kept === undefined || kept === null || typeof kept !== 'object') return undefined
  return { sessionId: typeof kept.sessionId === 'string' ? kept.sessionId : null }
}

async function rememberSentToPage (details: Interaction, sessionId: string | null): Promise<void> {
  details.lastSubmission = { sentToPageFrom: { sessionId } }
  await details.save(Math.max(1, details.exp - Math.floor(Date.now() / 1000)))
}

/** Where the page signs the visitor in and sends them back to the interaction. */
function pageLocation (details: Interaction): string {
  const query = new URLSearchParams({ redirect: interactionPath(details.uid) })
  const hint = text(details.params.login_hint)
  const locales = text(details.params.ui_locales)
  if (hint !== null) query.set('login_hint', hint)
  if (locales !== null) query.set('ui_locales', locales)
  if ((text(details.params.prompt) ?? '').split(' ').includes('create')) query.set('view', 'register')
  return `/?${query.toString()}`
}

function sendPage (reply: FastifyReply, status: number, page: ProviderPage): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type(PROVIDER_PAGE_TYPE).send(JSON.stringify(page))
}

/** The error page for an interaction that cannot go on (expired, or opened in another browser): the edge words it. */
function interactionGone (reply: FastifyReply, uiLocales: string | null): FastifyReply {
  return sendPage(reply, 400, { page: 'error', uiLocales, error: 'invalid_request', description: null })
}

/**
 * The provider's interactions, answered by the reference service: the page
 * as the sign-in screen, and consent (docs/oidc-provider.md).
 */
export class Interactions {
  constructor (private readonly parts: InteractionParts) {}

  /** `GET /oidc/interaction/:uid`: finish the login from the page's session, send the visitor to the page, or ask for consent. */
  async show (provider: Provider, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const details = await this.details(provider, request, reply)
    if (details === null) return interactionGone(reply, null)
    if (details.prompt.name === 'login') return await this.login(provider, details, request, reply)
    if (details.prompt.name === 'consent') return await this.consent(provider, details, request, reply)
    return sendPage(reply, 400, { page: 'error', uiLocales: text(details.params.ui_locales), error: 'invalid_request', description: null })
  }

  /** `POST /oidc/interaction/:uid/consent`: the visitor's `decision`, `allow` or `deny`. */
  async decide (provider: Provider, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const details = await this.details(provider, request, reply)
    if (details === null) return interactionGone(reply, null)
    const uiLocales = text(details.params.ui_locales)
    if (details.prompt.name !== 'consent') return interactionGone(reply, uiLocales)
    const decision = new URLSearchParams(await readForm(request)).get('decision')
    if (decision === 'allow') return await this.grant(provider, details, request, reply)
    if (decision !== 'deny') return sendPage(reply, 400, { page: 'error', uiLocales, error: 'invalid_request', description: null })
    const location = await provider.interactionResult(request.raw, reply.raw, { error: 'access_denied', error_description: 'the end-user did not consent' }, { mergeWithLastSubmission: false })
    return reply.code(303).header('cache-control', 'no-store').redirect(location, 303)
  }

  private async details (provider: Provider, request: FastifyRequest, reply: FastifyReply): Promise<Interaction | null> {
    try {
      const details = await provider.interactionDetails(request.raw, reply.raw)
      return details.uid === (request.params as { uid?: string }).uid ? details : null
    } catch {
      return null
    }
  }

  private async login (provider: Provider, details: Interaction, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { tokens, stepUp, now } = this.parts
    const session = await livePageSession(request.headers.cookie, tokens)
    const nowSeconds = Math.floor(now() / 1000)
    const sentToPageFrom = sentToPageFromOf(details)
    const decision = decideLogin(session, { ...loginRequest(details, nowSeconds), ...(sentToPageFrom === undefined ? {} : { sentToPageFrom }) }, nowSeconds)
    reply.header('cache-control', 'no-store')
    if (decision.kind === 'page') {
      if (sentToPageFrom === undefined) await rememberSentToPage(details, session?.sessionId ?? null)
      if (decision.stepUp) reply.header('set-cookie', stepUp.set(now()))
      return reply.redirect(pageLocation(details), 303)
    }
    const result: InteractionResults = decision.kind === 'finish'
      ? { login: { ...decision.login } }
      : { error: 'unmet_authentication_requirements', error_description: 'the requested authentication context could not be reached' }
    const location = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false })
    return reply.header('set-cookie', stepUp.clear()).redirect(location, 303)
  }

  private async consent (provider: Provider, details: Interaction, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const clientId = String(details.params.client_id)
    const client = await this.parts.clients.find(clientId)
    if (client?.firstParty === true) return await this.grant(provider, details, request, reply)
    const account = details.session === undefined ? null : await this.parts.store.findAccountById(details.session.accountId)
    if (client === null || account === null) return interactionGone(reply, text(details.params.ui_locales))
    const missing = new Set((details.prompt.details.missingOIDCScope as string[] | undefined) ?? [])
    return sendPage(reply, 200, {
      page: 'consent',
      uiLocales: text(details.params.ui_locales),
      client: { name: client.name, uri: client.clientUri },
      account: { email: account.email },
      scopes: (text(details.params.scope) ?? '').split(' ').filter((scope) => missing.has(scope) && CONSENT_SCOPES.includes(scope)),
      action: `${interactionPath(details.uid)}/consent`
    })
  }

  /** Grants what the interaction still needs, and goes back to the provider. */
  private async grant (provider: Provider, details: Interaction, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const accountId = details.session?.accountId
    if (accountId === undefined) return interactionGone(reply, text(details.params.ui_locales))
    const clientId = String(details.params.client_id)
    const grant = details.grantId === undefined
      ? new provider.Grant({ accountId, clientId })
      : await provider.Grant.find(details.grantId) ?? new provider.Grant({ accountId, clientId })
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details as {
      missingOIDCScope?: string[], missingOIDCClaims?: string[], missingResourceScopes?: Record<string, string[]>
    }
    if (missingOIDCScope !== undefined) grant.addOIDCScope(missingOIDCScope.join(' '))
    if (missingOIDCClaims !== undefined) grant.addOIDCClaims(missingOIDCClaims)
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '))
    const grantId = await grant.save()
    const location = await provider.interactionResult(request.raw, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true })
    return reply.header('cache-control', 'no-store').redirect(location, 303)
  }
}

/** The form body of a small POST, read from the stream Fastify left unread (oidc-routes.ts). */
async function readForm (request: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > CONSENT_BODY_MAX_BYTES) return ''
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
