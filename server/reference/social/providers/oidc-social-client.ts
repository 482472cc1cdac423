import type { OidcSocialConnection } from '../../../shared/social/social-connections.js'
import { verifiedClaims } from '../../relying-party/code-grant.js'
import { OidcDiscovery } from '../../relying-party/oidc-discovery.js'
import { authorizationRequest } from './authorization-request.js'
import type { SocialClientFactory, SocialIdentity } from '../social-identity.js'

/** A claim as text, or null when absent or not text. */
export function textClaim (claims: Record<string, unknown>, name: string): string | null {
  const value = claims[name]
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
}

/**
 * Any OpenID Connect provider (SOCIAL_CONNECTIONS type `oidc`), found by
 * discovery from its issuer: the authorization code flow with PKCE (S256),
 * state and nonce; the ID token's signature, issuer, audience, expiry and
 * nonce are checked by openid-client. The address counts only with
 * `email_verified: true`, from the ID token or, when the provider keeps them
 * to it, the userinfo endpoint (for the same subject).
 */
export const oidcSocialClient: SocialClientFactory<OidcSocialConnection> = (connection, urls, now) => {
  const discovery = new OidcDiscovery({ ...connection, insecureLoopback: new URL(connection.issuer).protocol === 'http:' }, now)
  return {
    async begin () {
      const configuration = await discovery.configuration()
      return await authorizationRequest(configuration, { redirect_uri: urls.callback, scope: connection.scope }, true)
    },

    async finish (answer, secrets): Promise<SocialIdentity> {
      if (secrets.nonce === null) throw new Error('an OpenID Connect request always has a nonce')
      const { subject, claims: source } = await verifiedClaims(await discovery.configuration(), new URL(`${urls.callback}?${answer.toString()}`), { ...secrets, nonce: secrets.nonce })
      return {
        subject,
        email: textClaim(source, 'email'),
        emailVerified: source.email_verified === true,
        firstName: textClaim(source, 'given_name'),
        lastName: textClaim(source, 'family_name')
      }
    }
  }
}
