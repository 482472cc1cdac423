import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import * as oidc from 'openid-client'
import type { MicrosoftConnection } from '../../../shared/social/social-connections.js'
import { authorizationRequest } from './authorization-request.js'
import type { SocialClientFactory, SocialIdentity } from '../social-identity.js'
import { checkAnswerIssuer, checkDiscoveredIssuer, checkTokenTenant, microsoftEmailVerified } from './microsoft-tenants.js'
import { authorizationCodeOf, quotedErrorCode } from './provider-answer.js'
import { checkedProviderUrl, isInsecureLoopback, PROVIDER_TIMEOUT_SECONDS } from './provider-urls.js'

/** Discovery is redone after an hour, so a changed endpoint or key set is picked up (as the SSO client's). */
const DISCOVERY_TTL_MS = 60 * 60 * 1000
const MICROSOFT_SCOPE = 'openid email profile'
/** Leeway for the ID token's times against this server's clock, as openid-client allows. */
const CLOCK_TOLERANCE_SECONDS = 30

interface Discovered {
  readonly configuration: oidc.Configuration
  /** `${authority}/{tenantid}/v2.0` for the multi-tenant endpoints, a tenant's own issuer otherwise. */
  readonly issuer: string
  readonly tokenEndpoint: URL
  readonly keys: ReturnType<typeof createRemoteJWKSet>
}

const text = (value: unknown): string | null => typeof value === 'string' && value.trim() !== '' ? value.trim() : null

/**
 * Microsoft's identity platform (v2.0): discovery from `${authority}/${tenant}/v2.0`, the authorization
 * code flow with the client secret, state, nonce and PKCE (S256).
 *
 * openid-client discovers, builds the request and draws its secrets; the code is exchanged and the ID token
 * verified here, with jose: with `common` and `organizations`, the discovered issuer is a template
 * (`…/{tenantid}/v2.0`) that each token's `tid` completes, which openid-client only accepts from the origin
 * https://login.microsoftonline.com (not a national cloud's, nor a stand-in's), and the tenant rules
 * (microsoft-tenants.ts) are Microsoft's, not OpenID Connect's.
 *
 * The subject is the token's `sub`: OpenID Connect's identifier, in every ID token whatever the scopes, and
 * pairwise (this app's alone), so the service keeps no identifier other apps of the tenant could match.
 * (`oid` with `tid` names the user across the tenant's apps; a link is to one connection, one app.)
 */
export const microsoftClient: SocialClientFactory<MicrosoftConnection> = (connection, urls, now) => {
  const insecureLoopback = isInsecureLoopback(connection.authority)
  let discovered: { readonly result: Promise<Discovered>, readonly at: number } | null = null

  async function discover (): Promise<Discovered> {
    const { authority, tenant, clientId, clientSecret } = connection
    const address = checkedProviderUrl(`${authority}/${encodeURIComponent(tenant)}/v2.0/.well-known/openid-configuration`, 'discovery document', insecureLoopback)
    // The document's own address: openid-client then leaves the issuer to checkDiscoveredIssuer, which knows the template.
    const configuration = await oidc.discovery(address, clientId, { client_secret: clientSecret }, oidc.ClientSecretPost(clientSecret),
      { execute: insecureLoopback ? [oidc.allowInsecureRequests] : [], timeout: PROVIDER_TIMEOUT_SECONDS })
    const metadata = configuration.serverMetadata()
    checkedProviderUrl(metadata.authorization_endpoint, 'authorization endpoint', insecureLoopback)
    const keys = checkedProviderUrl(metadata.jwks_uri, 'key set', insecureLoopback)
    return {
      configuration,
      issuer: checkDiscoveredIssuer(metadata.issuer, authority, tenant),
      tokenEndpoint: checkedProviderUrl(metadata.token_endpoint, 'token endpoint', insecureLoopback),
      keys: createRemoteJWKSet(keys, { timeoutDuration: PROVIDER_TIMEOUT_SECONDS * 1000 })
    }
  }

  function discovery (): Promise<Discovered> {
    const at = now()
    if (discovered !== null && at - discovered.at < DISCOVERY_TTL_MS) return discovered.result
    const result = discover()
    discovered = { result, at }
    // A failed discovery is not kept: the next sign-in tries again.
    result.catch(() => {
      if (discovered?.result === result) discovered = null
    })
    return result
  }

  /** The code exchanged at the token endpoint for the ID token, with the client secret and the PKCE verifier. */
  async function exchange (endpoint: URL, code: string, codeVerifier: string): Promise<string> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: connection.clientId,
        client_secret: connection.clientSecret,
        grant_type: 'authorization_code',
        code,
        redirect_uri: urls.callback,
        code_verifier: codeVerifier
      }),
      redirect: 'manual',
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_SECONDS * 1000)
    })
    const body = await response.json().catch(() => null) as { error?: unknown, id_token?: unknown } | null
    if (!response.ok) throw new Error(`Microsoft's token endpoint answered ${response.status} ${quotedErrorCode(body?.error)}`)
    if (typeof body?.id_token !== 'string') throw new Error('Microsoft\'s token endpoint returned no ID token')
    return body.id_token
  }

  return {
    async begin () {
      const { configuration } = await discovery()
      return await authorizationRequest(configuration, { redirect_uri: urls.callback, response_mode: 'query', scope: MICROSOFT_SCOPE }, true)
    },

    async finish (answer, secrets): Promise<SocialIdentity> {
      const code = authorizationCodeOf(answer)
      if (answer.get('state') !== secrets.state) throw new Error('Microsoft\'s answer carries another state')
      const { issuer, tokenEndpoint, keys } = await discovery()
      checkAnswerIssuer(answer.get('iss'), issuer)
      const idToken = await exchange(tokenEndpoint, code, secrets.codeVerifier)
      let claims: JWTPayload
      try {
        ({ payload: claims } = await jwtVerify(idToken, keys, {
          algorithms: ['RS256'],
          audience: connection.clientId,
          requiredClaims: ['iss', 'sub', 'exp', 'iat', 'tid'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: new Date(now())
        }))
      } catch (error) {
        const { code, claim } = error as { code?: string, claim?: string }
        throw new Error(`Microsoft's ID token did not verify (${code ?? 'invalid'}${claim === undefined ? '' : `, claim ${claim}`})`, { cause: error })
      }
      if (claims.nonce !== secrets.nonce) throw new Error('Microsoft\'s ID token carries another nonce')
      checkTokenTenant(claims, issuer, connection.tenant)
      if (answer.has('iss') && answer.get('iss') !== claims.iss) throw new Error('Microsoft\'s answer and its ID token name other issuers')
      const email = text(claims.email)
      const givenName = text(claims.given_name)
      return {
        subject: claims.sub!,
        email,
        emailVerified: email !== null && microsoftEmailVerified(claims),
        firstName: givenName ?? text(claims.name),
        lastName: givenName === null ? null : text(claims.family_name)
      }
    }
  }
}
