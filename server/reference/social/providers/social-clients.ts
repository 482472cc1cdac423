import type { SocialProviderType } from '../../../../common/social/social-providers.js'
import type { SocialConnection } from '../../../shared/social/social-connections.js'
import type { SocialClientFactory, SocialProviderClient, SocialReturnUrls } from '../social-identity.js'
import { appleClient } from './apple-client.js'
import { githubClient } from './github-client.js'
import { microsoftClient } from './microsoft-client.js'
import { oauth2SocialClient } from './oauth2-social-client.js'
import { oidcSocialClient } from './oidc-social-client.js'

/** Every connection type's client factory: one line per provider, and the type checker wants each type's. */
const SOCIAL_CLIENT_FACTORIES: { readonly [T in SocialProviderType]: SocialClientFactory<Extract<SocialConnection, { readonly type: T }>> } = {
  apple: appleClient,
  microsoft: microsoftClient,
  github: githubClient,
  oidc: oidcSocialClient,
  oauth2: oauth2SocialClient
}

/** The client of each configured connection, by its id, each given its own return addresses (`urlsOf` its id). */
export function socialClients (connections: readonly SocialConnection[], urlsOf: (id: string) => SocialReturnUrls, now: () => number): ReadonlyMap<string, SocialProviderClient> {
  const clients = new Map<string, SocialProviderClient>()
  for (const connection of connections) {
    const factory = SOCIAL_CLIENT_FACTORIES[connection.type] as SocialClientFactory
    clients.set(connection.id, factory(connection, urlsOf(connection.id), now))
  }
  return clients
}
