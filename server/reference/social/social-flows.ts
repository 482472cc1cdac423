import type { SocialConnection } from '../../shared/social/social-connections.js'
import { logAuthEvent } from '../audit/audit.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import { bindingHash, newBinding } from '../http/binding-cookie.js'
import { takeBoundTransaction } from '../http/bound-transaction.js'
import { ACCOUNTS_PATH } from '../http/exposed-routes.js'
import { parseEmail, providedName } from '../http/validation.js'
import { say, type AnswerKey } from '../languages/answer-texts.js'
import { hashToken, newOpaqueToken } from '../sessions/tokens.js'
import type { AccountStore, SsoTransaction } from '../store/account-store.js'
import { socialErrorUrl, socialReturnUrl, type SocialIntent } from './page-return.js'
import { parseSocialStart } from './requests.js'
import type { SocialIdentity, SocialProviderClient, SocialRequestSecrets, SocialReturnUrls } from './social-identity.js'
import { readSocialBinding, SOCIAL_STATE_TTL_MS, socialStateCookie } from './social-state.js'

/** The reference service's social paths (the edge serves them under /accounts: SOCIAL_ROUTES). */
export const SOCIAL_PATHS = Object.freeze({
  start: '/auth/login/social',
  /** Each connection has its own (`:provider`, its id): an answer is taken only for a transaction of that connection (mix-up, RFC 9700 §4.4). */
  callback: '/auth/social/callback/:provider',
  /** Apple's, by connection too. */
  formPost: '/auth/social/form-post/:provider',
  continue: '/auth/social/continue',
  linkStart: '/account/social/link/start',
  link: '/account/social/link',
  unlink: '/account/social/unlink'
})

/** The form_post hands over to the same-site step at once; the hand-over lives only this long. */
const HANDOVER_TTL_MS = 2 * 60 * 1000
const STATE_FORMAT = /^[\w-]{20,128}$/
const HANDOVER_CODE_FORMAT = /^[\w-]{43}$/
/** The transactions' protocol in the table they share with single sign-on's. */
const PROTOCOL = 'social'

/** What a verified answer leaves for the page: who the provider says it is, with a verified address. */
export interface VerifiedSocialIdentity {
  readonly subject: string
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
}

/** What the page's single-use id stands for. */
export interface ReturnedSocialIdentity {
  readonly provider: string
  readonly intent: SocialIntent
  readonly identity: VerifiedSocialIdentity
}

/** What a transaction row's `data` holds, by stage. */
export type SocialTransactionData =
  | { readonly stage: 'started', readonly intent: SocialIntent, readonly secrets: SocialRequestSecrets }
  | { readonly stage: 'verified', readonly intent: SocialIntent, readonly identity: VerifiedSocialIdentity }
  /** Under the hash of the page's single-use id: what the completion (or the account's link) takes. */
  | { readonly stage: 'returned', readonly intent: SocialIntent, readonly identity: VerifiedSocialIdentity }

/** A provider leg's step: a redirect (303), maybe with a Set-Cookie. */
export interface SocialReply {
  readonly location: string
  readonly cookie: string | null
}

export interface SocialFlowsOptions {
  readonly store: AccountStore
  readonly connections: readonly SocialConnection[]
  /** Each connection's client, by id (server/reference/social/providers/social-clients.ts). */
  readonly clients: ReadonlyMap<string, SocialProviderClient>
  readonly publicUrl: string
  readonly now: () => number
}

const redirect = (location: string, cookie: string | null = null): SocialReply => ({ location, cookie })
const answer = (status: number, body: Record<string, unknown>, cookie: string | null = null): Answer =>
  ({ status, body, ...(cookie === null ? {} : { cookies: [cookie] }) })

/** Where the connection `provider` sends the browser back: its own addresses, never another connection's. */
export function socialReturnUrls (publicUrl: string, provider: string): SocialReturnUrls {
  const at = (path: string): string => `${publicUrl}${ACCOUNTS_PATH}${path.replace(':provider', encodeURIComponent(provider))}`
  return { callback: at(SOCIAL_PATHS.callback), formPost: at(SOCIAL_PATHS.formPost) }
}

/**
 * The provider's leg of a social sign-in or link: from the click to the
 * return to the page with a single-use id (docs/social-sign-in.md).
 *
 * Every step is tied to the browser that started it, as single sign-on's
 * are (server/reference/sso/sso-flows.ts): the start sets the `social_state` cookie and
 * stores its binding's hash with the transaction (keyed by the state); the
 * callback is a top-level GET, so the cookie arrives and is checked before
 * the code is exchanged. Apple posts cross-site (form_post), where the Lax
 * cookie does not arrive: the answer is verified there, parked under a
 * one-time code, and the browser sent (303) to a GET step where the cookie is
 * checked. Only then is the page's id issued, bound to the same cookie.
 * Someone holding a valid answer for himself therefore cannot sign a
 * victim's browser in as him (login CSRF), and a return link is worthless in
 * any other browser.
 */
export class SocialFlows {
  private readonly connections = new Map<string, SocialConnection>()

  constructor (private readonly options: SocialFlowsOptions) {
    for (const connection of options.connections) this.connections.set(connection.id, connection)
  }

  private get store (): AccountStore { return this.options.store }

  /** The connection of `id`, or undefined when none is configured by that id. */
  connection (id: string): SocialConnection | undefined {
    return this.connections.get(id)
  }

  /** Every configured connection, in the operator's order. */
  get configured (): readonly SocialConnection[] {
    return this.options.connections
  }

  /** `auth/login/social`: the provider's authorization URL and the state cookie. */
  async start (body: unknown, facts: RequestFacts): Promise<Answer> {
    const parsed = parseSocialStart(body)
    if (!parsed.ok) return answer(400, { error: say(facts, parsed.error) })
    return await this.begin(parsed.value.provider, { purpose: 'login', context: { ...parsed.value.context, locale: facts.locale } }, facts)
  }

  /** Starts the provider's leg for `intent`: 200 `{url}` with the cookie, 400 for an unknown provider, 502 when it cannot be reached. */
  async begin (provider: string, intent: SocialIntent, facts: RequestFacts): Promise<Answer> {
    const client = this.options.clients.get(provider)
    if (client === undefined) {
      logAuthEvent(facts, 'social.refused', { clientAddress: facts.clientAddress, reason: 'unknown provider' })
      return answer(400, { error: say(facts, 'social.unknownProvider') })
    }
    let begun
    try {
      begun = await client.begin()
    } catch (error) {
      facts.log.warn({ err: error, provider }, 'a social sign-in could not start')
      logAuthEvent(facts, 'social.refused', { clientAddress: facts.clientAddress, provider, reason: 'provider unreachable' })
      return answer(502, { error: say(facts, { key: 'social.providerUnreachable', params: { provider: this.nameOf(provider) } }) })
    }
    const binding = newBinding()
    await this.store.insertSsoTransaction({
      id: begun.secrets.state,
      bindingHash: bindingHash(binding),
      connectionDomain: provider,
      protocol: PROTOCOL,
      data: JSON.stringify({ stage: 'started', intent, secrets: begun.secrets } satisfies SocialTransactionData),
      expiresAt: this.options.now() + SOCIAL_STATE_TTL_MS
    })
    logAuthEvent(facts, 'social.started', { clientAddress: facts.clientAddress, provider, purpose: intent.purpose })
    return answer(200, { url: begun.url }, socialStateCookie(binding))
  }

  /** The name a connection's button shows (its id when it is no longer configured). */
  nameOf (provider: string): string {
    return this.connections.get(provider)?.name ?? provider
  }

  /** Back to the page with `message`, in the page's language (else the browser's); the reason goes to the log only. */
  private refuse (facts: RequestFacts, provider: string | null, reason: string, message: AnswerKey, intent: SocialIntent | null): SocialReply {
    logAuthEvent(facts, 'social.refused', { clientAddress: facts.clientAddress, provider, reason })
    const locale = (intent?.purpose === 'link' ? intent.locale : intent?.context.locale) ?? facts.locale
    const text = say({ locale }, { key: message, params: { provider: provider === null ? '' : this.nameOf(provider) } })
    return redirect(socialErrorUrl(this.options.publicUrl, text, intent))
  }

  /**
   * Takes a transaction at `stage` out of the store if this browser's cookie
   * is the one it is bound to and, with `provider`, it is that connection's
   * (server/reference/http/bound-transaction.ts): nothing is taken otherwise.
   */
  async takeBound (id: string, binding: string | null, stage: SocialTransactionData['stage'], provider?: string): Promise<
    { readonly transaction: SsoTransaction, readonly data: SocialTransactionData } | { readonly refused: string }
  > {
    const taken = await takeBoundTransaction(this.store, id, binding, this.options.now(), (transaction) => this.mismatch(transaction, stage, provider))
    if ('refused' in taken) return taken
    return { transaction: taken.transaction, data: JSON.parse(taken.transaction.data) as SocialTransactionData }
  }

  /** What is wrong with taking `transaction` for `stage` on `provider`'s address; null when nothing is. */
  private mismatch (transaction: SsoTransaction, stage: SocialTransactionData['stage'], provider?: string): string | null {
    if (transaction.protocol !== PROTOCOL) return 'unknown, used or expired transaction'
    if ((JSON.parse(transaction.data) as SocialTransactionData).stage !== stage) return 'transaction at another stage'
    // The mix-up attack: another connection's answer (its code) sent to this one's address.
    if (provider !== undefined && transaction.connectionDomain !== provider) return 'an answer for another connection\'s sign-in'
    return null
  }

  /** The connection of a return address's `provider`, if it answers on `leg` (Apple on the form post only, the others on the callback only). */
  private returnLeg (provider: string, leg: 'callback' | 'formPost'): SocialConnection | undefined {
    const connection = this.connections.get(provider)
    return connection !== undefined && (connection.type === 'apple') === (leg === 'formPost') ? connection : undefined
  }

  /** Checks what the provider vouched for: an address it has verified, which reads as one. */
  private accept (identity: SocialIdentity): { readonly identity: VerifiedSocialIdentity } | { readonly refused: string, readonly message: AnswerKey } {
    if (identity.email === null) return { refused: 'the provider named no address', message: 'social.noEmail' }
    if (!identity.emailVerified) return { refused: 'the provider has not verified the address', message: 'social.emailNotVerified' }
    const email = parseEmail(identity.email)
    if (!email.ok) return { refused: 'the provider named an address that is not valid', message: 'social.noEmail' }
    return { identity: { subject: identity.subject, email: email.value, firstName: providedName(identity.firstName), lastName: providedName(identity.lastName) } }
  }

  /** Verifies the provider's answer for a started transaction: the identity, or the refusal to send the browser with. */
  private async verify (
    facts: RequestFacts, transaction: SsoTransaction, data: Extract<SocialTransactionData, { stage: 'started' }>, answerFields: URLSearchParams
  ): Promise<{ readonly identity: VerifiedSocialIdentity } | { readonly reply: SocialReply }> {
    const provider = transaction.connectionDomain
    const client = this.options.clients.get(provider)
    if (client === undefined) return { reply: this.refuse(facts, provider, 'the connection is no longer configured', 'social.notConfigured', data.intent) }
    const providerError = answerFields.get('error')
    if (providerError !== null) {
      const code = /^[\w.-]{1,64}$/.test(providerError) ? providerError : 'error'
      return { reply: this.refuse(facts, provider, `the provider answered ${code}`, 'social.providerRefused', data.intent) }
    }
    let identity
    try {
      identity = await client.finish(answerFields, data.secrets)
    } catch (error) {
      facts.log.warn({ err: error, provider }, 'a social provider\'s answer did not verify')
      return { reply: this.refuse(facts, provider, `the answer did not verify (${(error as { code?: string }).code ?? 'error'})`, 'social.notVerified', data.intent) }
    }
    const accepted = this.accept(identity)
    if ('refused' in accepted) return { reply: this.refuse(facts, provider, accepted.refused, accepted.message, data.intent) }
    return accepted
  }

  /** Issues the page's single-use id, bound to this browser's cookie, and sends the browser back to the page. */
  private async returnToPage (facts: RequestFacts, provider: string, identity: VerifiedSocialIdentity, intent: SocialIntent, binding: string): Promise<SocialReply> {
    const id = newOpaqueToken()
    await this.store.insertSsoTransaction({
      id: hashToken(id),
      bindingHash: bindingHash(binding),
      connectionDomain: provider,
      protocol: PROTOCOL,
      data: JSON.stringify({ stage: 'returned', intent, identity } satisfies SocialTransactionData),
      expiresAt: this.options.now() + SOCIAL_STATE_TTL_MS
    })
    logAuthEvent(facts, 'social.returned', { email: identity.email, clientAddress: facts.clientAddress, provider, purpose: intent.purpose })
    // The cookie is set again so that it lives as long as the id it guards.
    return redirect(socialReturnUrl(this.options.publicUrl, provider, id, intent), socialStateCookie(binding))
  }

  /**
   * GET `auth/social/callback/<id>?code&state` (or `?error&state`): a
   * top-level navigation, so the cookie is here. The transaction must be
   * connection `<id>`'s: a provider that sent the browser to another one's
   * authorization (a mix-up) gets that one's code sent nowhere.
   */
  async callback (provider: string, rawQuery: string, cookieHeader: string | undefined, facts: RequestFacts): Promise<SocialReply> {
    if (this.returnLeg(provider, 'callback') === undefined) return this.refuse(facts, null, 'no such connection answers on the callback', 'social.unknownProvider', null)
    const query = new URLSearchParams(rawQuery)
    const state = query.get('state')
    if (state === null || !STATE_FORMAT.test(state)) return this.refuse(facts, provider, 'no valid state', 'social.notThisBrowser', null)
    const binding = readSocialBinding(cookieHeader)
    const taken = await this.takeBound(state, binding, 'started', provider)
    if ('refused' in taken) return this.refuse(facts, provider, taken.refused, 'social.notThisBrowser', null)
    const { transaction, data } = taken
    if (data.stage !== 'started') return this.refuse(facts, null, 'transaction at another stage', 'social.notThisBrowser', null)
    const verified = await this.verify(facts, transaction, data, query)
    if ('reply' in verified) return verified.reply
    return await this.returnToPage(facts, transaction.connectionDomain, verified.identity, data.intent, binding!)
  }

  /**
   * POST `auth/social/form-post/<id>`, from an Apple connection's page
   * (form_post): cross-site, without the cookie. The answer is verified
   * against the transaction its state names, if that is connection `<id>`'s,
   * then handed over to the same-site step, where the cookie is checked.
   */
  async formPost (provider: string, form: URLSearchParams | undefined, facts: RequestFacts): Promise<SocialReply> {
    if (this.returnLeg(provider, 'formPost') === undefined) return this.refuse(facts, null, 'no such connection answers on the form post', 'social.unknownProvider', null)
    const state = form?.get('state') ?? null
    if (form === undefined || state === null || !STATE_FORMAT.test(state)) return this.refuse(facts, provider, 'no valid state', 'social.notThisBrowser', null)
    const now = this.options.now()
    const found = await this.store.findSsoTransaction(state, now)
    const refused = found === null ? 'unknown, used or expired transaction' : this.mismatch(found, 'started', provider)
    if (refused !== null) return this.refuse(facts, provider, refused, 'social.notThisBrowser', null)
    const transaction = await this.store.takeSsoTransaction(state, now)
    const data = transaction === null ? null : JSON.parse(transaction.data) as SocialTransactionData
    if (transaction === null || data?.stage !== 'started') return this.refuse(facts, provider, 'unknown, used or expired transaction', 'social.notThisBrowser', null)
    const verified = await this.verify(facts, transaction, data, form)
    if ('reply' in verified) return verified.reply
    const code = newOpaqueToken()
    await this.store.insertSsoTransaction({
      id: hashToken(code),
      bindingHash: transaction.bindingHash,
      connectionDomain: transaction.connectionDomain,
      protocol: PROTOCOL,
      data: JSON.stringify({ stage: 'verified', intent: data.intent, identity: verified.identity } satisfies SocialTransactionData),
      expiresAt: now + HANDOVER_TTL_MS
    })
    return redirect(`${this.options.publicUrl}${ACCOUNTS_PATH}${SOCIAL_PATHS.continue}?code=${code}`)
  }

  /** GET `auth/social/continue?code`: same-site again, so the cookie is here and is checked. */
  async continue (code: unknown, cookieHeader: string | undefined, facts: RequestFacts): Promise<SocialReply> {
    if (typeof code !== 'string' || !HANDOVER_CODE_FORMAT.test(code)) return this.refuse(facts, null, 'no valid hand-over code', 'social.notThisBrowser', null)
    const binding = readSocialBinding(cookieHeader)
    const taken = await this.takeBound(hashToken(code), binding, 'verified')
    if ('refused' in taken) return this.refuse(facts, null, taken.refused, 'social.notThisBrowser', null)
    const { transaction, data } = taken
    if (data.stage !== 'verified') return this.refuse(facts, null, 'transaction at another stage', 'social.notThisBrowser', null)
    return await this.returnToPage(facts, transaction.connectionDomain, data.identity, data.intent, binding!)
  }

  /**
   * Takes the identity the page's single-use id stands for, if this browser
   * may use it: the id's transaction, bound to this browser's cookie. Null
   * (logged) otherwise; the caller checks what it was issued for.
   */
  async takeReturned (id: string, cookieHeader: string | undefined, facts: RequestFacts): Promise<ReturnedSocialIdentity | null> {
    const taken = await this.takeBound(hashToken(id), readSocialBinding(cookieHeader), 'returned')
    const refuse = (reason: string): null => {
      logAuthEvent(facts, 'social.refused', { clientAddress: facts.clientAddress, reason })
      return null
    }
    if ('refused' in taken) return refuse(taken.refused)
    if (taken.data.stage !== 'returned') return refuse('transaction at another stage')
    return { provider: taken.transaction.connectionDomain, intent: taken.data.intent, identity: taken.data.identity }
  }
}
