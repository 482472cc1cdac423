import type { SocialProviderType } from '../../../../common/social/social-providers.js'
import { ConfigError } from '../../../shared/env-parsing.js'
import type { SocialConnection } from '../../../shared/social/social-connections.js'
import type { SocialClientFactory, SocialProviderClient, SocialReturnUrls } from '../social-identity.js'
import { oauth2SocialClient } from './oauth2-social-client.js'
import { oidcSocialClient } from './oidc-social-client.js'

/** The client factory of each connection type this service serves. */
export type SocialClientFactories = { readonly [T in SocialProviderType]?: SocialClientFactory<Extract<SocialConnection, { readonly type: T }>> }

/** Every type's factory: one line per provider. */
const SOCIAL_CLIENT_FACTORIES: SocialClientFactories = {
  oidc: oidcSocialClient,
  oauth2: oauth2SocialClient
}

/**
 * The client of each configured connection, by its id. A connection of a
 * type with no factory stops the start: a button the service could not
 * serve would only fail the visitor who clicks it.
 */
export function socialClients (
  connections: readonly SocialConnection[], urls: SocialReturnUrls, now: () => number, factories: SocialClientFactories = SOCIAL_CLIENT_FACTORIES
): ReadonlyMap<string, SocialProviderClient> {
  const clients = new Map<string, SocialProviderClient>()
  for (const connection of connections) {
    const factory = factories[connection.type] as SocialClientFactory | undefined
    if (factory === undefined) {
      throw new ConfigError('SOCIAL_CONNECTIONS', `${connection.id}: connections of type ${connection.type} are not served by this version of the accounts service`)
    }
    clients.set(connection.id, factory(connection, urls, now))
  }
  return clients
}
