import * as oidc from 'openid-client'
import { isLoopbackHost } from '../../../common/http/hosts.js'
import type { AssertedIdentity } from './asserted-identity.js'
import type { OidcConnection } from './connections.js'

/** Discovery is redone after an hour, so a provider's changed endpoints or keys are picked up. */
const OIDC_DISCOVERY_TTL_MS = 60 * 60 * 1000
/** Time limit on each call to the provider (discovery, token, key set, userinfo). */
const OIDC_TIMEOUT_SECONDS = 10
const OIDC_SCOPE = 'openid email'

/** The secrets of one authorization request, kept server-side until the provider answers. */
export interface OidcRequestSecrets {
  readonly state: string
  readonly codeVerifier: string
  readonly nonce: string
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

/**
 * The relying party for one OIDC connection: authorization code flow with
 * PKCE (S256), state and nonce; the ID token's signature, issuer, audience,
 * expiry and nonce are checked on the way back.
 */
export class OidcClient {
  private discovered: { readonly configuration: Promise<oidc.Configuration>, readonly at: number } | null = null

  constructor (
    private readonly connection: OidcConnection,
    private readonly redirectUri: string,
    private readonly now: () => number
  ) {}

  private configuration (): Promise<oidc.Configuration> {
    const now = this.now()
    if (this.discovered !== null && now - this.discovered.at < OIDC_DISCOVERY_TTL_MS) return this.discovered.configuration
    const configuration = this.discover()
    this.discovered = { configuration, at: now }
    // A failed discovery is not kept: the next sign-in tries again.
    configuration.catch(() => {
      if (this.discovered?.configuration === configuration) this.discovered = null
    })
    return configuration
  }

  private async discover (): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret, insecureLoopback } = this.connection
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

  /** The provider's authorization URL for a new sign-in, and the secrets to keep until it answers. */
  async begin (loginHint: string): Promise<{ readonly url: string, readonly secrets: OidcRequestSecrets }> {
    const configuration = await this.configuration()
    const secrets = { state: oidc.randomState(), codeVerifier: oidc.randomPKCECodeVerifier(), nonce: oidc.randomNonce() }
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: OIDC_SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
      state: secrets.state,
      nonce: secrets.nonce,
      login_hint: loginHint
    })
    return { url: url.href, secrets }
  }

  /**
   * Checks the provider's answer (the callback's query string), exchanges the
   * code and verifies the ID token. The email comes from the ID token, or,
   * when the provider keeps it to the userinfo endpoint, from there, for the
   * same subject.
   */
  async finish (callbackQuery: string, secrets: OidcRequestSecrets): Promise<AssertedIdentity> {
    const configuration = await this.configuration()
    const tokens = await oidc.authorizationCodeGrant(configuration, new URL(`${this.redirectUri}?${callbackQuery}`), {
      pkceCodeVerifier: secrets.codeVerifier,
      expectedState: secrets.state,
      expectedNonce: secrets.nonce,
      idTokenExpected: true
    })
    const claims = tokens.claims()
    if (claims === undefined) throw new Error('the provider returned no ID token')
    let source: Record<string, unknown> = claims
    if (typeof claims.email !== 'string') source = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub)
    return {
      subject: claims.sub,
      email: typeof source.email === 'string' ? source.email : null,
      emailVerified: typeof source.email_verified === 'boolean' ? source.email_verified : null
    }
  }
}
