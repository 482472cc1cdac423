import { randomBytes } from 'node:crypto'
import type { Answer, RequestFacts } from '../http/answers.js'
import { say, type AnswerKey, type AnswerText } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import type { AccountStore, SsoTransaction } from '../store/account-store.js'
import { hashToken, newOpaqueToken } from '../sessions/tokens.js'
import { acceptIdentity, type AcceptedIdentity } from './asserted-identity.js'
import { connectionDomainOf, type SsoConnection } from './connections.js'
import { OidcClient, type OidcRequestSecrets } from './oidc-client.js'
import { pageErrorUrl, pageReturnUrl, type SsoContext, type SsoProtocol } from './page-return.js'
import { parseSsoStart } from './requests.js'
import { SamlRefusedError, SamlServiceProvider } from './saml-provider.js'
import { takeBoundTransaction } from '../http/bound-transaction.js'
import { ACCOUNTS_PATH } from '../http/exposed-routes.js'
import { bindingHash, newBinding, readBinding, SSO_STATE_TTL_MS, stateCookie } from './state-cookie.js'

/** The reference service's SSO paths (the edge serves them under /accounts). */
export const SSO_PATHS = Object.freeze({
  start: '/auth/login/sso',
  oidcCallback: '/auth/sso/oidc/callback',
  samlAcs: '/auth/sso/saml/acs',
  samlContinue: '/auth/sso/saml/continue',
  samlMetadata: '/auth/sso/saml/metadata'
})

/** The page's single-use id works for 10 minutes. */
const SSO_ID_TTL_MS = 10 * 60 * 1000
/** The ACS hands over to the same-site step at once; the hand-over lives only this long. */
const SAML_HANDOVER_TTL_MS = 2 * 60 * 1000

const SSO_NOT_SET_UP: AnswerKey = 'sso.notSetUp'
const NOT_THIS_BROWSER: AnswerKey = 'sso.notThisBrowser'
const NOT_VERIFIED: AnswerKey = 'sso.notVerified'
const IDP_REFUSED: AnswerKey = 'sso.providerRefused'

const OIDC_STATE_FORMAT = /^[\w-]{20,128}$/
const SAML_REQUEST_ID_FORMAT = /^_[0-9a-f]{40}$/
const HANDOVER_CODE_FORMAT = /^[\w-]{43}$/

/** What an SSO step asks of HTTP: a JSON answer or a redirect, maybe with a Set-Cookie. */
export type SsoReply =
  | { readonly kind: 'answer', readonly answer: Answer, readonly cookie: string | null }
  | { readonly kind: 'redirect', readonly location: string, readonly cookie: string | null }

/** What a transaction row's `data` holds, by stage. */
type TransactionData =
  | { readonly stage: 'started', readonly context: SsoContext, readonly oidc?: OidcRequestSecrets, readonly saml?: { readonly issuedAt: string } }
  | { readonly stage: 'verified', readonly context: SsoContext, readonly identity: AcceptedIdentity }

export interface SsoFlowsOptions {
  readonly store: AccountStore
  readonly connections: readonly SsoConnection[]
  readonly publicUrl: string
  readonly now: () => number
}

const redirect = (location: string, cookie: string | null = null): SsoReply => ({ kind: 'redirect', location, cookie })
const answer = (status: number, body: Record<string, unknown>, cookie: string | null = null): SsoReply =>
  ({ kind: 'answer', answer: { status, body }, cookie })

/**
 * The identity provider's leg of single sign-on: from the page's click to the
 * return to the page with a single-use id.
 *
 * Every step is tied to the browser that started it. The start sets a state
 * cookie holding a random binding and stores its hash with the transaction.
 * The OIDC callback is a top-level GET, so the cookie arrives and is checked
 * before the code is exchanged. The SAML provider POSTs cross-site, where the
 * Lax cookie does not arrive: the ACS verifies the response, parks the
 * result under a one-time code and sends the browser (303) to a GET step,
 * where the cookie does arrive and is checked. Only then is the page's id
 * issued, bound to the same cookie. Someone who obtains a valid answer for
 * himself therefore cannot sign a victim's browser in as him, and a return
 * link is worthless in any other browser.
 */
export class SsoFlows {
  private readonly connections = new Map<string, SsoConnection>()
  private readonly oidcClients = new Map<string, OidcClient>()
  private readonly samlProviders = new Map<string, SamlServiceProvider>()

  constructor (private readonly options: SsoFlowsOptions) {
    const base = `${options.publicUrl}${ACCOUNTS_PATH}`
    for (const connection of options.connections) {
      this.connections.set(connection.domain, connection)
      if (connection.type === 'oidc') {
        this.oidcClients.set(connection.domain, new OidcClient(connection, `${base}${SSO_PATHS.oidcCallback}`, options.now))
      } else {
        this.samlProviders.set(connection.domain, new SamlServiceProvider(connection, this.acsUrl))
      }
    }
  }

  private get store (): AccountStore { return this.options.store }

  /** The assertion consumer service URL the SAML providers post to. */
  get acsUrl (): string {
    return `${this.options.publicUrl}${ACCOUNTS_PATH}${SSO_PATHS.samlAcs}`
  }

  /** `auth/login/sso`: finds the connection for the email's domain and starts its flow. */
  async start (body: unknown, facts: RequestFacts): Promise<SsoReply> {
    const parsed = parseSsoStart(body)
    if (!parsed.ok) return answer(400, { error: say(facts, parsed.error) })
    const { email } = parsed.value
    const context: SsoContext = { ...parsed.value.context, locale: facts.locale }
    const domain = connectionDomainOf(email)
    const connection = domain === null ? undefined : this.connections.get(domain)
    if (connection === undefined) {
      logAuthEvent(facts, 'sso.refused', { email, clientAddress: facts.clientAddress, reason: 'no connection for the domain' })
      return answer(400, { error: say(facts, SSO_NOT_SET_UP) })
    }

    const now = this.options.now()
    const binding = newBinding()
    let id: string
    let url: string
    let data: TransactionData
    try {
      if (connection.type === 'oidc') {
        const begun = await this.oidcClients.get(connection.domain)!.begin(email)
        url = begun.url
        id = begun.secrets.state
        data = { stage: 'started', context, oidc: begun.secrets }
      } else {
        id = `_${randomBytes(20).toString('hex')}`
        const begun = await this.samlProviders.get(connection.domain)!.begin(id)
        url = begun.url
        data = { stage: 'started', context, saml: { issuedAt: begun.issuedAt } }
      }
    } catch (error) {
      facts.log.warn({ err: error, connection: connection.domain }, 'single sign-on could not start')
      logAuthEvent(facts, 'sso.refused', { email, clientAddress: facts.clientAddress, reason: 'provider unreachable' })
      return answer(502, { error: say(facts, 'sso.providerUnreachable') })
    }
    await this.store.insertSsoTransaction({
      id,
      bindingHash: bindingHash(binding),
      connectionDomain: connection.domain,
      protocol: connection.type,
      data: JSON.stringify(data),
      expiresAt: now + SSO_STATE_TTL_MS
    })
    logAuthEvent(facts, 'sso.started', { email, clientAddress: facts.clientAddress, protocol: connection.type, connection: connection.domain })
    return answer(200, { sso_url: url }, stateCookie(binding))
  }

  /** Back to the page with `message`, in the page's language (else the browser's); the reason goes to the log only. */
  private refuse (facts: RequestFacts, protocol: SsoProtocol, reason: string, message: AnswerText, context: SsoContext | null): SsoReply {
    logAuthEvent(facts, 'sso.refused', { clientAddress: facts.clientAddress, protocol, reason })
    return redirect(pageErrorUrl(this.options.publicUrl, say({ locale: context?.locale ?? facts.locale }, message), context))
  }

  /** Takes a transaction of `protocol` at `stage` out of the store if this browser's cookie is the one it is bound to (server/reference/http/bound-transaction.ts). */
  private async takeBound (id: string, binding: string | null, protocol: SsoProtocol, stage: TransactionData['stage']): Promise<
    { readonly transaction: SsoTransaction, readonly data: TransactionData } | { readonly refused: string }
  > {
    const taken = await takeBoundTransaction(this.store, id, binding, this.options.now(), (transaction) => {
      if (transaction.protocol !== protocol) return 'unknown, used or expired transaction'
      return (JSON.parse(transaction.data) as TransactionData).stage === stage ? null : 'transaction at another stage'
    })
    if ('refused' in taken) return taken
    return { transaction: taken.transaction, data: JSON.parse(taken.transaction.data) as TransactionData }
  }

  /** Issues the page's single-use id, bound to this browser's cookie, and sends the browser back to the page. */
  private async returnToPage (
    facts: RequestFacts, protocol: SsoProtocol, connectionDomain: string, identity: AcceptedIdentity, context: SsoContext, binding: string
  ): Promise<SsoReply> {
    const id = newOpaqueToken()
    await this.store.insertSsoIdentity({
      idHash: hashToken(id),
      bindingHash: bindingHash(binding),
      email: identity.email,
      protocol,
      subject: identity.subject,
      connectionDomain,
      expiresAt: this.options.now() + SSO_ID_TTL_MS
    })
    logAuthEvent(facts, 'sso.returned', { email: identity.email, clientAddress: facts.clientAddress, protocol, connection: connectionDomain })
    // The cookie is set again so that it lives as long as the id it guards.
    return redirect(pageReturnUrl(this.options.publicUrl, protocol, identity.email, id, context), stateCookie(binding))
  }

  /** GET `auth/sso/oidc/callback?code&state` (or `?error&state`): a top-level navigation, so the cookie is here. */
  async oidcCallback (rawQuery: string, cookieHeader: string | undefined, facts: RequestFacts): Promise<SsoReply> {
    const query = new URLSearchParams(rawQuery)
    const state = query.get('state')
    if (state === null || !OIDC_STATE_FORMAT.test(state)) return this.refuse(facts, 'oidc', 'no valid state', NOT_THIS_BROWSER, null)
    const binding = readBinding(cookieHeader)
    const taken = await this.takeBound(state, binding, 'oidc', 'started')
    if ('refused' in taken) return this.refuse(facts, 'oidc', taken.refused, NOT_THIS_BROWSER, null)
    const { transaction, data } = taken
    const client = this.oidcClients.get(transaction.connectionDomain)
    if (client === undefined || data.stage !== 'started' || data.oidc === undefined) {
      return this.refuse(facts, 'oidc', 'the connection is no longer configured', SSO_NOT_SET_UP, data.context)
    }
    const providerError = query.get('error')
    if (providerError !== null) {
      const code = /^[\w.-]{1,64}$/.test(providerError) ? providerError : 'error'
      return this.refuse(facts, 'oidc', `the provider answered ${code}`, IDP_REFUSED, data.context)
    }

    let identity
    try {
      identity = await client.finish(rawQuery, data.oidc)
    } catch (error) {
      facts.log.warn({ err: error, connection: transaction.connectionDomain }, 'an OIDC answer did not verify')
      return this.refuse(facts, 'oidc', `the answer did not verify (${(error as { code?: string }).code ?? 'error'})`, NOT_VERIFIED, data.context)
    }
    const accepted = acceptIdentity(identity, transaction.connectionDomain)
    if (!accepted.ok) return this.refuse(facts, 'oidc', accepted.reason, accepted.error, data.context)
    return this.returnToPage(facts, 'oidc', transaction.connectionDomain, accepted.value, data.context, binding!)
  }

  /**
   * POST `auth/sso/saml/acs`, from the provider's page: cross-site, without
   * the cookie. The response is verified against the transaction its
   * RelayState names, then handed over to the same-site step.
   */
  async samlAcs (form: URLSearchParams | undefined, facts: RequestFacts): Promise<SsoReply> {
    const relayState = form?.get('RelayState') ?? null
    const samlResponse = form?.get('SAMLResponse') ?? null
    if (relayState === null || !SAML_REQUEST_ID_FORMAT.test(relayState)) {
      return this.refuse(facts, 'saml', 'no RelayState naming a request (unsolicited responses are not accepted)', NOT_THIS_BROWSER, null)
    }
    if (samlResponse === null || samlResponse === '') return this.refuse(facts, 'saml', 'no SAMLResponse', NOT_VERIFIED, null)
    const now = this.options.now()
    const transaction = await this.store.takeSsoTransaction(relayState, now)
    const data = transaction === null ? null : JSON.parse(transaction.data) as TransactionData
    if (transaction === null || transaction.protocol !== 'saml' || data?.stage !== 'started' || data.saml === undefined) {
      return this.refuse(facts, 'saml', 'unknown, used or expired request', NOT_THIS_BROWSER, null)
    }
    const provider = this.samlProviders.get(transaction.connectionDomain)
    if (provider === undefined) return this.refuse(facts, 'saml', 'the connection is no longer configured', SSO_NOT_SET_UP, data.context)

    let verified
    try {
      verified = await provider.verify(samlResponse, { requestId: transaction.id, issuedAt: data.saml.issuedAt }, now)
    } catch (error) {
      if (error instanceof SamlRefusedError) return this.refuse(facts, 'saml', 'the provider answered with an error status', IDP_REFUSED, data.context)
      facts.log.warn({ err: error, connection: transaction.connectionDomain }, 'a SAML response did not verify')
      return this.refuse(facts, 'saml', `the response did not verify (${String((error as Error).message).slice(0, 200)})`, NOT_VERIFIED, data.context)
    }
    if (!(await this.store.rememberAssertion(verified.assertionId, verified.rememberUntil, now))) {
      return this.refuse(facts, 'saml', 'the assertion was replayed', NOT_VERIFIED, data.context)
    }
    const accepted = acceptIdentity(verified.identity, transaction.connectionDomain)
    if (!accepted.ok) return this.refuse(facts, 'saml', accepted.reason, accepted.error, data.context)

    const code = newOpaqueToken()
    await this.store.insertSsoTransaction({
      id: hashToken(code),
      bindingHash: transaction.bindingHash,
      connectionDomain: transaction.connectionDomain,
      protocol: 'saml',
      data: JSON.stringify({ stage: 'verified', context: data.context, identity: accepted.value } satisfies TransactionData),
      expiresAt: now + SAML_HANDOVER_TTL_MS
    })
    return redirect(`${this.options.publicUrl}${ACCOUNTS_PATH}${SSO_PATHS.samlContinue}?code=${code}`)
  }

  /** GET `auth/sso/saml/continue?code`: same-site again, so the cookie is here and is checked. */
  async samlContinue (code: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<SsoReply> {
    if (typeof code !== 'string' || !HANDOVER_CODE_FORMAT.test(code)) return this.refuse(facts, 'saml', 'no valid hand-over code', NOT_THIS_BROWSER, null)
    const binding = readBinding(cookieHeader)
    const taken = await this.takeBound(hashToken(code), binding, 'saml', 'verified')
    if ('refused' in taken) return this.refuse(facts, 'saml', taken.refused, NOT_THIS_BROWSER, null)
    const { transaction, data } = taken
    if (data.stage !== 'verified') return this.refuse(facts, 'saml', 'transaction at another stage', NOT_THIS_BROWSER, null)
    return this.returnToPage(facts, 'saml', transaction.connectionDomain, data.identity, data.context, binding!)
  }

  /**
   * The SP metadata of a SAML connection: the one named by `domain`, or the
   * only one when there is a single SAML connection.
   */
  samlMetadata (domain: string | null): { readonly xml: string } | { readonly status: number, readonly error: AnswerKey } {
    const providers = [...this.samlProviders.entries()]
    if (domain === null) {
      if (providers.length === 1) return { xml: providers[0]![1].metadata() }
      if (providers.length === 0) return { status: 404, error: 'sso.noSamlConnection' }
      return { status: 400, error: 'sso.severalSamlConnections' }
    }
    const provider = this.samlProviders.get(connectionDomainOf(`@${domain}`) ?? '')
    return provider === undefined ? { status: 404, error: 'sso.noSamlConnectionForDomain' } : { xml: provider.metadata() }
  }
}
