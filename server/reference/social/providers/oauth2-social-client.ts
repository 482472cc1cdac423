import * as oidc from 'openid-client'
import type { OAuth2SocialConnection } from '../../../shared/social/social-connections.js'
import { OIDC_TIMEOUT_SECONDS } from '../../relying-party/oidc-discovery.js'
import { authorizationRequest } from './authorization-request.js'
import type { SocialClientFactory, SocialIdentity } from '../social-identity.js'
import { textClaim } from './oidc-social-client.js'

/** A userinfo answer larger than this is not one. */
const USERINFO_MAX_BYTES = 64 * 1024

/** The userinfo's identifier: `sub`, or `id` (text or a whole number), as most OAuth 2.0 providers name it. */
function subjectOf (userinfo: Record<string, unknown>): string | null {
  for (const name of ['sub', 'id']) {
    const value = userinfo[name]
    if (typeof value === 'string' && value !== '' && value.length <= 255) return value
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  }
  return null
}

async function fetchUserinfo (endpoint: string, accessToken: string): Promise<Record<string, unknown>> {
  const response = await fetch(endpoint, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(OIDC_TIMEOUT_SECONDS * 1000)
  })
  if (!response.ok) throw new Error(`the userinfo endpoint answered ${response.status}`)
  const text = await response.text()
  if (text.length > USERINFO_MAX_BYTES) throw new Error('the userinfo answer is too large')
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    // JSON.parse's message quotes the text, which may hold the visitor's address: the error is logged.
    throw new Error('the userinfo answer is not JSON')
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('the userinfo answer is not a JSON object')
  return body as Record<string, unknown>
}

/**
 * Any OAuth 2.0 provider (SOCIAL_CONNECTIONS type `oauth2`) whose userinfo
 * endpoint names the user (`sub` or `id`) and a verified address (`email`,
 * `email_verified: true`): the authorization code flow with PKCE (S256) and
 * state, the code exchanged at the token endpoint with the client secret
 * (client_secret_basic, which RFC 6749 section 2.3.1 has every server
 * support), by openid-client; no ID token, so no nonce.
 */
export const oauth2SocialClient: SocialClientFactory<OAuth2SocialConnection> = (connection, urls) => {
  const insecure = [connection.authorizationEndpoint, connection.tokenEndpoint, connection.userinfoEndpoint].some((url) => url.startsWith('http:'))
  const configuration = new oidc.Configuration({
    // No issuer is published: the authorization endpoint's origin stands for it (RFC 9207's `iss` is checked against it when sent).
    issuer: new URL(connection.authorizationEndpoint).origin,
    authorization_endpoint: connection.authorizationEndpoint,
    token_endpoint: connection.tokenEndpoint,
    userinfo_endpoint: connection.userinfoEndpoint
  }, connection.clientId, { client_secret: connection.clientSecret }, oidc.ClientSecretBasic(connection.clientSecret))
  configuration.timeout = OIDC_TIMEOUT_SECONDS
  // The parser lets plain http through only for loopback hosts (server/shared/social/social-connections.ts).
  if (insecure) oidc.allowInsecureRequests(configuration)
  return {
    async begin () {
      return await authorizationRequest(configuration, { redirect_uri: urls.callback, scope: connection.scope }, false)
    },

    async finish (answer, secrets): Promise<SocialIdentity> {
      const tokens = await oidc.authorizationCodeGrant(configuration, new URL(`${urls.callback}?${answer.toString()}`), {
        pkceCodeVerifier: secrets.codeVerifier,
        expectedState: secrets.state
      })
      const userinfo = await fetchUserinfo(connection.userinfoEndpoint, tokens.access_token)
      const subject = subjectOf(userinfo)
      if (subject === null) throw new Error('the userinfo names no user (sub or id)')
      return {
        subject,
        email: textClaim(userinfo, 'email'),
        emailVerified: userinfo.email_verified === true,
        firstName: textClaim(userinfo, 'given_name'),
        lastName: textClaim(userinfo, 'family_name')
      }
    }
  }
}
