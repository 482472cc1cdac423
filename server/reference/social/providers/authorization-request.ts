import * as oidc from 'openid-client'
import type { SocialRequestSecrets } from '../social-identity.js'

/**
 * A new authorization request to a provider openid-client knows the
 * endpoints of: the code flow with a fresh state, PKCE (S256) and, where an
 * ID token will come (`withNonce`), a nonce; `parameters` add the redirect
 * URI, the scope and the provider's own (Apple's `response_mode`).
 */
export async function authorizationRequest (
  configuration: oidc.Configuration, parameters: Readonly<Record<string, string>>, withNonce: boolean
): Promise<{ readonly url: string, readonly secrets: SocialRequestSecrets }> {
  const secrets = { state: oidc.randomState(), codeVerifier: oidc.randomPKCECodeVerifier(), nonce: withNonce ? oidc.randomNonce() : null }
  const url = oidc.buildAuthorizationUrl(configuration, {
    ...parameters,
    response_type: 'code',
    state: secrets.state,
    ...(secrets.nonce === null ? {} : { nonce: secrets.nonce }),
    code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
    code_challenge_method: 'S256'
  })
  return { url: url.href, secrets }
}
