import * as oidc from 'openid-client'

/** The secrets of one authorization request that its answer is checked against. */
interface RequestSecrets {
  readonly state: string
  readonly codeVerifier: string
  readonly nonce: string
}

/**
 * The authorization code flow's second half, shared by single sign-on's and
 * the social connections' OpenID Connect providers: the code exchanged with
 * the PKCE verifier, the state and the ID token (signature, issuer, audience,
 * expiry, nonce) checked by openid-client. The claims naming the address are
 * the ID token's or, when the provider keeps the address to its userinfo
 * endpoint, that endpoint's, for the same subject.
 */
export async function verifiedClaims (
  configuration: oidc.Configuration, answer: URL, secrets: RequestSecrets
): Promise<{ readonly subject: string, readonly claims: Record<string, unknown> }> {
  const tokens = await oidc.authorizationCodeGrant(configuration, answer, {
    pkceCodeVerifier: secrets.codeVerifier,
    expectedState: secrets.state,
    expectedNonce: secrets.nonce,
    idTokenExpected: true
  })
  const claims = tokens.claims()
  if (claims === undefined) throw new Error('the provider returned no ID token')
  if (typeof claims.email === 'string') return { subject: claims.sub, claims }
  return { subject: claims.sub, claims: await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub) }
}
