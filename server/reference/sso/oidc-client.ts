import * as oidc from 'openid-client'
import { verifiedClaims } from '../relying-party/code-grant.js'
import { OidcDiscovery } from '../relying-party/oidc-discovery.js'
import type { AssertedIdentity } from './asserted-identity.js'
import type { OidcConnection } from './connections.js'

const OIDC_SCOPE = 'openid email'

/** The secrets of one authorization request, kept server-side until the provider answers. */
export interface OidcRequestSecrets {
  readonly state: string
  readonly codeVerifier: string
  readonly nonce: string
}

/**
 * The relying party for one OIDC connection: authorization code flow with
 * PKCE (S256), state and nonce; the ID token's signature, issuer, audience,
 * expiry and nonce are checked on the way back.
 */
export class OidcClient {
  private readonly discovery: OidcDiscovery

  constructor (
    connection: OidcConnection,
    private readonly redirectUri: string,
    now: () => number
  ) {
    this.discovery = new OidcDiscovery(connection, now)
  }

  private configuration (): Promise<oidc.Configuration> {
    return this.discovery.configuration()
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
    const { subject, claims: source } = await verifiedClaims(await this.configuration(), new URL(`${this.redirectUri}?${callbackQuery}`), secrets)
    return {
      subject,
      email: typeof source.email === 'string' ? source.email : null,
      emailVerified: typeof source.email_verified === 'boolean' ? source.email_verified : null
    }
  }
}
