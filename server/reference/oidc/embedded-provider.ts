import type { FastifyBaseLogger } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type { SigningKeys } from '../keys/signing-keys.js'
import type { OidcClientRegistry } from './oidc-clients.js'
import { OIDC_PATH_PREFIX } from '../../shared/oidc/provider-pages.js'
import { livePageSession } from './page-session.js'
import type { ProviderParts } from './provider-configuration.js'

/** The derived secret's purpose for the provider's cookie signatures (server/reference/keys/derived-secrets.ts). */
export const OIDC_COOKIE_PURPOSE = 'oidc-provider-cookies'

/** Where the provider's interactions are: the reference service's own routes (oidc-routes.ts). */
export function interactionPath (uid: string): string {
  return `${OIDC_PATH_PREFIX}interaction/${uid}`
}

export interface EmbeddedProviderOptions extends ProviderParts {
  readonly signingKeys: Pick<SigningKeys, 'privateKeySet'>
  readonly log: FastifyBaseLogger
  readonly now: () => number
}

/** A provider and the request handler it serves with. */
interface Built {
  readonly keyIds: string
  readonly provider: Provider
  /** Koa's handler: it answers every request itself, errors included, and never rejects. */
  readonly handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>
}

/**
 * The OpenID Connect provider of the reference service, on only while a
 * client is configured. oidc-provider takes its keys once, when built: the
 * provider is built again whenever the page's key set changes (a rotation
 * read from DATA_DIR/keys, or a new key's time to sign), so that it signs
 * with the key the page signs with and publishes the same set. Its state
 * lives in the adapter, which every build shares.
 */
export class EmbeddedProvider {
  private built: Built | null = null
  /** oidc-provider and Koa are loaded at the first request: a service without clients never parses them. */
  private building: Promise<typeof import('./provider-configuration.js')> | null = null

  constructor (private readonly options: EmbeddedProviderOptions) {}

  get clients (): OidcClientRegistry {
    return this.options.clients
  }

  /** Whether the provider answers at all: at least one client is configured. */
  async enabled (): Promise<boolean> {
    return await this.options.clients.any()
  }

  /** The provider for the key set of now. */
  async current (): Promise<Built> {
    const keys = this.options.signingKeys.privateKeySet(this.options.now())
    const keyIds = keys.map((key) => key.kid).join(' ')
    if (this.built?.keyIds === keyIds) return this.built
    this.building ??= import('./provider-configuration.js')
    const { buildProvider } = await this.building
    if (this.built?.keyIds === keyIds) return this.built
    const provider = buildProvider(this.options, keys)
    this.watch(provider)
    const handle: Built['handle'] = provider.callback()
    this.built = { keyIds, provider, handle }
    return this.built
  }

  private watch (provider: Provider): void {
    const { log, tokens, clients } = this.options
    // A first-party client gets the refresh token it asks for (offline_access) without the consent prompt the
    // specification otherwise requires for it: the prompt is added here, and the interaction grants it at once (interactions.ts).
    provider.use(async (ctx, next) => {
      if (ctx.method === 'GET' && ctx.path === `${OIDC_PATH_PREFIX}auth`) {
        const { client_id: clientId, scope, prompt } = ctx.query
        const prompts = typeof prompt === 'string' ? prompt.split(' ').filter(Boolean) : []
        if (typeof clientId === 'string' && typeof scope === 'string' && scope.split(' ').includes('offline_access') &&
          !prompts.includes('consent') && !prompts.includes('none') && (await clients.find(clientId))?.firstParty === true) {
          ctx.query = { ...ctx.query, prompt: [...prompts, 'consent'].join(' ') }
        }
      }
      await next()
    })
    // Never the error's context: it may hold a code or a token.
    provider.on('server_error', (_ctx: KoaContextWithOIDC, error: Error) => { log.error({ err: error }, 'the OpenID Connect provider failed a request') })
    provider.on('backchannel.error', (_ctx: KoaContextWithOIDC, error: Error, client: { clientId: string }) => {
      log.warn({ clientId: client.clientId, error: error.message }, 'a back-channel logout was not delivered')
    })
    // Signing out of the provider signs the browser out of the page too: its session would otherwise pass the next request straight through.
    provider.use(async (ctx, next) => {
      await next()
      const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined
      if (oidc?.route !== 'end_session_confirm' || ctx.status !== 303 || oidc.params?.logout === undefined) return
      const page = await livePageSession(ctx.get('cookie'), tokens)
      if (page !== null) await this.options.store.revokeRefreshFamily(page.sessionId, this.options.now())
    })
  }
}
