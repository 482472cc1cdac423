import Provider, { interactionPolicy, type Adapter, type AdapterPayload, type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import type { JWK } from 'jose'
import type { SessionSettings } from '../config.js'
import { SIGNING_ALGORITHM } from '../keys/signing-key.js'
import type { TokenService } from '../sessions/tokens.js'
import type { AccountStore } from '../store/account-store.js'
import { ACR_VALUES } from './acr.js'
import { secretMatches, type OidcClient, type OidcClientRegistry } from './oidc-clients.js'
import { livePageSession } from './page-session.js'
import { logoutSource, postLogoutSuccessSource, renderError } from './provider-page-answers.js'
import { interactionPath } from './embedded-provider.js'
import { OIDC_PATH_PREFIX } from '../../shared/oidc/provider-pages.js'

/** The provider's cookies (host-only: no Domain). */
export const OIDC_COOKIE_NAMES = Object.freeze({ session: 'oidc_session', interaction: 'oidc_interaction', resume: 'oidc_interaction_resume' })


/** An authorization code is exchanged at once or never. */
const AUTHORIZATION_CODE_TTL_SECONDS = 60
/** The provider's access tokens: as short as the page's auth token. */
const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
const ID_TOKEN_TTL_SECONDS = 60 * 60
/** As long as a visitor may take on the page to sign in (and the step-up mark lives). */
const INTERACTION_TTL_SECONDS = 10 * 60
const DAY_SECONDS = 24 * 60 * 60


export interface ProviderParts {
  /** PUBLIC_URL: the issuer. */
  readonly issuer: string
  readonly clients: OidcClientRegistry
  /** The adapter class for everything but clients: the store's (oidc-adapter.ts). */
  readonly adapter: new (model: string) => Adapter
  readonly store: AccountStore
  readonly tokens: TokenService
  /** The HMAC key of the provider's cookies. */
  readonly cookieKey: Buffer
  readonly sessions: SessionSettings
}

/** A client of the registry as oidc-provider's metadata. */
function clientMetadata (client: OidcClient): AdapterPayload {
  return {
    client_id: client.clientId,
    client_name: client.name,
    redirect_uris: [...client.redirectUris],
    post_logout_redirect_uris: [...client.postLogoutRedirectUris],
    ...(client.clientUri === null ? {} : { client_uri: client.clientUri }),
    // The logout token names the session (`sid`), as every ID token does.
    ...(client.backchannelLogoutUri === null ? {} : { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: true }),
    token_endpoint_auth_method: client.authMethod,
    // The hash stands where oidc-provider keeps a secret: compareClientSecret (below) hashes what is presented.
    ...(client.secretSha256 === null ? {} : { client_secret: client.secretSha256 }),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    id_token_signed_response_alg: SIGNING_ALGORITHM
  }
}

/** The adapter class with clients read from the registry, every other model from `inner`. */
function withClients (clients: OidcClientRegistry, Inner: new (model: string) => Adapter): new (model: string) => Adapter {
  return class ClientsThenInner implements Adapter {
    private readonly inner: Adapter | null
    constructor (model: string) { this.inner = model === 'Client' ? null : new Inner(model) }
    async upsert (id: string, payload: AdapterPayload, expiresIn: number): Promise<void> { await this.inner?.upsert(id, payload, expiresIn) }
    async find (id: string): Promise<AdapterPayload | undefined | void> {
      if (this.inner !== null) return await this.inner.find(id)
      const client = id.length <= 64 ? await clients.find(id) : null
      return client === null ? undefined : clientMetadata(client)
    }

    async findByUserCode (userCode: string): Promise<AdapterPayload | undefined | void> { return await this.inner?.findByUserCode(userCode) }
    async findByUid (uid: string): Promise<AdapterPayload | undefined | void> { return await this.inner?.findByUid(uid) }
    async consume (id: string): Promise<void> { await this.inner?.consume(id) }
    async destroy (id: string): Promise<void> { await this.inner?.destroy(id) }
    async revokeByGrantId (grantId: string): Promise<void> { await this.inner?.revokeByGrantId(grantId) }
  }
}

/**
 * The login prompt's policy, with one check before oidc-provider's: a
 * provider session whose page session has ended (signed out on the page,
 * ended in the account view, revoked), or that names another account than
 * the page's, is not used again; the login goes through the page.
 */
function loginPolicy (tokens: TokenService): interactionPolicy.DefaultPolicy {
  const policy = interactionPolicy.base()
  policy.get('login')!.checks.add(new interactionPolicy.Check('page_session_ended', 'the page session has ended', async (ctx) => {
    const accountId = ctx.oidc.session?.accountId
    if (accountId === undefined || ctx.oidc.result?.login !== undefined) return interactionPolicy.Check.NO_NEED_TO_PROMPT
    const page = await livePageSession(ctx.get('cookie'), tokens)
    if (page?.accountId === accountId) return interactionPolicy.Check.NO_NEED_TO_PROMPT
    await logOutClients(ctx, accountId)
    return interactionPolicy.Check.REQUEST_PROMPT
  }), 0)
  return policy
}

/** What oidc-provider's Client offers for a back-channel logout, which its types leave out. */
interface BackChannelClient {
  readonly backchannelLogoutUri?: string | undefined
  backchannelLogout (accountId: string, sid: string | undefined): Promise<void>
}

/**
 * The provider session ended with the page's: each client it signed in that
 * registered a back-channel logout is told (once: its authorization leaves
 * the session), as on RP-initiated logout. A client that cannot be reached
 * is not waited for twice; oidc-provider gives each call 2.5 seconds.
 */
async function logOutClients (ctx: KoaContextWithOIDC, accountId: string): Promise<void> {
  const session = ctx.oidc.session!
  for (const [clientId, authorization] of Object.entries(session.authorizations ?? {})) {
    // An empty container (oidc-provider makes one for each request's client) names no session the client knows.
    const client = authorization.sid === undefined ? undefined : await ctx.oidc.provider.Client.find(clientId) as unknown as BackChannelClient | undefined
    if (client?.backchannelLogoutUri !== undefined) {
      await client.backchannelLogout(accountId, session.sidFor(clientId)).then(
        () => { ctx.oidc.provider.emit('backchannel.success', ctx, client, accountId) },
        (error: unknown) => { ctx.oidc.provider.emit('backchannel.error', ctx, error, client, accountId) }
      )
    }
    delete session.authorizations![clientId]
  }
}

/** The OpenID claims of an account, as oidc-provider filters them by scope. */
async function findAccount (store: AccountStore, sub: string): Promise<{ accountId: string, claims: () => Promise<{ sub: string, [claim: string]: unknown }> } | undefined> {
  const account = await store.findAccountById(sub)
  if (account === null) return undefined
  return {
    accountId: account.id,
    claims: async () => {
      const name = [account.firstName, account.lastName].filter((part) => part !== null && part !== '').join(' ')
      return {
        sub: account.id,
        email: account.email,
        email_verified: account.emailVerifiedAt !== null,
        ...(name === '' ? {} : { name }),
        ...(account.firstName === null ? {} : { given_name: account.firstName }),
        ...(account.lastName === null ? {} : { family_name: account.lastName })
      }
    }
  }
}

/**
 * A first-party client's grant covers whatever it asks: it never sees the
 * consent page (its first grant is made by the consent interaction without
 * one). Others' grants are the ones the visitor gave (interactions.ts).
 */
async function loadExistingGrant (ctx: KoaContextWithOIDC, clients: OidcClientRegistry): Promise<InstanceType<Provider['Grant']> | undefined> {
  const { oidc } = ctx
  const client = oidc.client!
  const grantId = oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(client.clientId)
  const existing = grantId === undefined ? undefined : await oidc.provider.Grant.find(grantId)
  // Without a grant yet, the consent interaction makes it, for the account that signed in (interactions.ts).
  if (existing === undefined || (await clients.find(client.clientId))?.firstParty !== true) return existing
  const grant = existing
  grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '))
  grant.addOIDCClaims([...oidc.requestParamClaims])
  await grant.save()
  return grant
}

/**
 * oidc-provider's configuration (docs/oidc-provider.md#settings): the code
 * flow alone, PKCE with S256 (required of public clients), the page's keys,
 * its accounts, its cookies' keys, and every page answered as JSON.
 */
function providerConfiguration (parts: ProviderParts, keys: readonly JWK[]): Configuration {
  const { clients, tokens, store } = parts
  const postMethods = parts.issuer.startsWith('https:')
  return {
    adapter: withClients(clients, parts.adapter),
    findAccount: async (_ctx, sub) => await findAccount(store, sub),
    // Its only outgoing calls are back-channel logouts, to addresses the operator registered (OIDC_CLIENTS, the admin
    // command), often a product's server on the private network, which oidc-provider's check for special-use addresses refuses.
    fetch: async (url, options) => {
      const { dispatcher: _ssrfCheck, ...rest } = options as RequestInit & { dispatcher?: unknown }
      return await globalThis.fetch(url, rest)
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: SIGNING_ALGORITHM,
      token_endpoint_auth_method: 'client_secret_basic',
      require_auth_time: true
    },
    responseTypes: ['code'],
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    // How the visitor signed in is part of every ID token: a client can ask for more at once (acr_values).
    claims: {
      openid: ['sub', 'acr', 'amr', 'auth_time'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name']
    },
    acrValues: [...ACR_VALUES],
    // OpenID Connect Core (3.1.2.1) asks for POST at the authorization endpoint too: a client's form
    // posts there from its own site, which reaches the provider's session only with SameSite=None, a
    // cookie browsers keep only when Secure. On an https issuer, then; plain http (loopback, tests) keeps
    // Lax and GET alone.
    enableHttpPostMethods: postMethods,
    cookies: {
      names: { ...OIDC_COOKIE_NAMES },
      keys: [parts.cookieKey.toString('base64url')],
      long: { httpOnly: true, sameSite: postMethods ? 'none' : 'lax', signed: true },
      short: { httpOnly: true, sameSite: postMethods ? 'none' : 'lax', signed: true }
    },
    features: {
      devInteractions: { enabled: false },
      claimsParameter: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource }
    },
    interactions: {
      policy: loginPolicy(tokens),
      url: (_ctx, interaction) => interactionPath(interaction.uid)
    },
    jwks: { keys: keys.map((key) => ({ ...key })) },
    loadExistingGrant: async (ctx) => await loadExistingGrant(ctx, clients),
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    routes: {
      authorization: `${OIDC_PATH_PREFIX}auth`,
      token: `${OIDC_PATH_PREFIX}token`,
      userinfo: `${OIDC_PATH_PREFIX}me`,
      jwks: `${OIDC_PATH_PREFIX}jwks`,
      end_session: `${OIDC_PATH_PREFIX}session/end`,
      revocation: `${OIDC_PATH_PREFIX}token/revocation`,
      introspection: `${OIDC_PATH_PREFIX}token/introspection`
    },
    // Every use of a refresh token spends it; the adapter forgives a reuse within the page's grace (REFRESH_REUSE_GRACE_SECONDS).
    rotateRefreshToken: true,
    renderError: (ctx, out) => { renderError(ctx, out) },
    ttl: {
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      IdToken: ID_TOKEN_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: parts.sessions.maxLifetimeDays * DAY_SECONDS,
      Grant: parts.sessions.maxLifetimeDays * DAY_SECONDS,
      RefreshToken: parts.sessions.idleTimeoutDays * DAY_SECONDS
    },
    enabledJWA: {
      idTokenSigningAlgValues: [SIGNING_ALGORITHM],
      userinfoSigningAlgValues: [SIGNING_ALGORITHM],
      introspectionSigningAlgValues: [SIGNING_ALGORITHM],
      authorizationSigningAlgValues: [SIGNING_ALGORITHM],
      requestObjectSigningAlgValues: [SIGNING_ALGORITHM],
      clientAuthSigningAlgValues: [SIGNING_ALGORITHM]
    }
  }
}

/**
 * A provider built from `parts` with `keys`, behind the page's own proxy:
 * the reference service states the forwarded host and scheme from
 * PUBLIC_URL itself (oidc-routes.ts), never from a request's headers.
 */
export function buildProvider (parts: ProviderParts, keys: readonly JWK[]): Provider {
  const provider = new Provider(parts.issuer, providerConfiguration(parts, keys))
  provider.proxy = true
  // A client's secret is kept as its SHA-256 (oidc-clients.ts): the presented one is hashed and compared in constant time.
  provider.Client.prototype.compareClientSecret = async function compare (this: InstanceType<Provider['Client']>, presented: string): Promise<boolean> {
    const client = await parts.clients.find(this.clientId)
    return client !== null && secretMatches(client, presented)
  }
  // Every ID token names its session (`sid`), not only those of clients that registered a back-channel logout asking for it.
  provider.Client.prototype.includeSid = () => true
  return provider
}
