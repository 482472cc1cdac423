import * as oidc from 'openid-client'
import type { AppleConnection } from '../../../shared/social/social-connections.js'
import { authorizationRequest } from './authorization-request.js'
import type { SocialClientFactory, SocialIdentity } from '../social-identity.js'
import { appleClientSecrets } from './apple-client-secret.js'
import { appleNameOf } from './apple-user-field.js'
import { explainedOpenidError } from './openid-client-errors.js'
import { authorizationCodeOf } from './provider-answer.js'
import { checkedProviderUrl, endpointOf, isInsecureLoopback, PROVIDER_TIMEOUT_SECONDS } from './provider-urls.js'

/** `name email`: Apple then answers with `response_mode=form_post` only (it will not put them in a URL). */
const APPLE_SCOPE = 'name email'

/** Apple writes booleans in its ID tokens as the strings "true" and "false" as often as JSON booleans. */
const isTrue = (value: unknown): boolean => value === true || value === 'true'
/** Where Apple's private relay addresses live (Hide My Email): Apple made them, and forwards to the visitor. */
const PRIVATE_RELAY_DOMAIN = '@privaterelay.appleid.com'

/**
 * Apple's endpoints, as its REST API documents them under the issuer. Apple publishes a discovery document
 * too, but these paths are the documented interface and have not moved since launch: building the metadata
 * from them spares a round trip (and a failure: Apple's discovery down, no sign-in) before every first
 * sign-in, while the key set is still fetched, and cached, from `auth/keys`.
 */
function appleMetadata (issuer: string, insecureLoopback: boolean): oidc.ServerMetadata {
  const endpoint = (path: string): string => checkedProviderUrl(endpointOf(issuer, path), path, insecureLoopback).href
  return {
    issuer,
    authorization_endpoint: endpoint('/auth/authorize'),
    token_endpoint: endpoint('/auth/token'),
    jwks_uri: endpoint('/auth/keys'),
    response_modes_supported: ['form_post'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_post']
  }
}

/**
 * Sign in with Apple ("Sign in with Apple REST API"): the authorization code flow with PKCE (S256), state
 * and nonce, answered by a cross-site form post to the service's `formPost` address; the code exchanged with
 * a client secret signed with the operator's key (apple-client-secret.ts); the ID token's signature (Apple's
 * key set), issuer, audience, expiry and nonce checked by openid-client.
 */
export const appleClient: SocialClientFactory<AppleConnection> = (connection, urls, now) => {
  const insecureLoopback = isInsecureLoopback(connection.issuer)
  // None(): the client secret is a fresh JWT for each exchange, passed with the code below; openid-client's
  // ClientSecretPost takes one fixed string.
  const configuration = new oidc.Configuration(appleMetadata(connection.issuer, insecureLoopback), connection.clientId,
    { id_token_signed_response_alg: 'RS256' }, oidc.None())
  // Without this, a code-flow ID token's signature goes unchecked (the TLS channel is trusted instead).
  oidc.enableNonRepudiationChecks(configuration)
  if (insecureLoopback) oidc.allowInsecureRequests(configuration)
  configuration.timeout = PROVIDER_TIMEOUT_SECONDS
  const clientSecret = appleClientSecrets(connection, now)

  return {
    async begin () {
      return await authorizationRequest(configuration, { redirect_uri: urls.formPost, response_mode: 'form_post', scope: APPLE_SCOPE }, true)
    },

    async finish (answer, secrets): Promise<SocialIdentity> {
      if (secrets.nonce === null) throw new Error('a Sign in with Apple request is always made with a nonce')
      const code = authorizationCodeOf(answer)
      // The answer as openid-client reads one: the code and state on the redirect URI, which it also sends
      // to the token endpoint. Only these two: the form's other fields are not protocol parameters.
      const returned = new URL(urls.formPost)
      returned.search = new URLSearchParams({ code, state: answer.get('state') ?? '' }).toString()
      const tokens = await oidc.authorizationCodeGrant(configuration, returned, {
        pkceCodeVerifier: secrets.codeVerifier,
        expectedState: secrets.state,
        expectedNonce: secrets.nonce,
        idTokenExpected: true
      }, { client_secret: await clientSecret() }).catch((error: unknown) => {
        // Apple's own code (invalid_client: the secret; invalid_grant: the code, its redirect URI or verifier) says what failed.
        throw explainedOpenidError('Apple', error)
      })
      const claims = tokens.claims()
      if (claims === undefined) throw new Error('Apple returned no ID token')
      const email = typeof claims.email === 'string' && claims.email !== '' ? claims.email : null
      // A private relay address (is_private_email) is one Apple made and forwards for the visitor: verified.
      const privateRelay = email !== null && isTrue(claims.is_private_email) && email.toLowerCase().endsWith(PRIVATE_RELAY_DOMAIN)
      const emailVerified = email !== null && (isTrue(claims.email_verified) || privateRelay)
      return { subject: claims.sub, email, emailVerified, ...appleNameOf(answer.get('user')) }
    }
  }
}
