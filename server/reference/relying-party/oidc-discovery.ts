import * as oidc from 'openid-client'
import { isLoopbackHost } from '../../../common/http/hosts.js'

/**
 * The service as an OpenID Connect relying party (single sign-on's OIDC
 * connections, social connections of type `oidc`): the provider's
 * configuration, found by discovery from its issuer and kept for a while.
 */

/** Discovery is redone after an hour, so a provider's changed endpoints or keys are picked up. */
const OIDC_DISCOVERY_TTL_MS = 60 * 60 * 1000
/** Time limit on each call to the provider (discovery, token, key set, userinfo). */
export const OIDC_TIMEOUT_SECONDS = 10

/** What discovery needs of a connection. */
export interface RelyingPartySettings {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** A plain-http issuer on a loopback host (a stand-in on the developer's machine). */
  readonly insecureLoopback: boolean
}

const ENDPOINT_FIELDS = ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint'] as const

/**
 * allowInsecureRequests lets every endpoint of the provider be plain http; it
 * is only turned on for a loopback issuer, and then its endpoints must be on
 * loopback too, so discovery cannot point the service at a plain-http host.
 */
function checkEndpoints (metadata: oidc.ServerMetadata): void {
  for (const field of ENDPOINT_FIELDS) {
    const value = metadata[field]
    if (typeof value !== 'string') continue
    const url = new URL(value)
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      throw new Error(`the provider's ${field} is neither https nor loopback`)
    }
  }
}

async function discover ({ issuer, clientId, clientSecret, insecureLoopback }: RelyingPartySettings): Promise<oidc.Configuration> {
  // Without this, a code-flow ID token's signature goes unchecked (the TLS channel is trusted instead).
  const execute = [oidc.enableNonRepudiationChecks, ...(insecureLoopback ? [oidc.allowInsecureRequests] : [])]
  const discovered = await oidc.discovery(new URL(issuer), clientId, { client_secret: clientSecret },
    oidc.ClientSecretBasic(clientSecret), { execute, timeout: OIDC_TIMEOUT_SECONDS })
  const metadata = discovered.serverMetadata()
  if (insecureLoopback) checkEndpoints(metadata)
  // client_secret_basic is the default (and what providers must support); post only when the provider says basic is out.
  const methods = metadata.token_endpoint_auth_methods_supported
  if (methods === undefined || methods.includes('client_secret_basic') || !methods.includes('client_secret_post')) return discovered
  const configuration = new oidc.Configuration(metadata, clientId, { client_secret: clientSecret }, oidc.ClientSecretPost(clientSecret))
  for (const step of execute) step(configuration)
  configuration.timeout = OIDC_TIMEOUT_SECONDS
  return configuration
}

/** One provider's configuration, discovered on first use and again after OIDC_DISCOVERY_TTL_MS; a failed discovery is tried again at the next use. */
export class OidcDiscovery {
  private discovered: { readonly configuration: Promise<oidc.Configuration>, readonly at: number } | null = null

  constructor (private readonly settings: RelyingPartySettings, private readonly now: () => number) {}

  configuration (): Promise<oidc.Configuration> {
    const now = this.now()
    if (this.discovered !== null && now - this.discovered.at < OIDC_DISCOVERY_TTL_MS) return this.discovered.configuration
    const configuration = discover(this.settings)
    this.discovered = { configuration, at: now }
    configuration.catch(() => {
      if (this.discovered?.configuration === configuration) this.discovered = null
    })
    return configuration
  }
}
