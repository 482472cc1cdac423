import * as oidc from 'openid-client'
import type { GithubConnection } from '../../../shared/social/social-connections.js'
import type { SocialClientFactory, SocialIdentity } from '../social-identity.js'
import { authorizationCodeOf, quotedErrorCode } from './provider-answer.js'
import { checkedProviderUrl, endpointOf, isInsecureLoopback, PROVIDER_TIMEOUT_SECONDS } from './provider-urls.js'

/** The profile, and the addresses (user:email) with whether GitHub verified each. */
const GITHUB_SCOPE = 'read:user user:email'
/** The REST API version the answers below are read as (GitHub's "API versions"). */
const GITHUB_API_VERSION = '2022-11-28'
/** GitHub refuses API calls without a User-Agent, and asks that it name the application. */
const USER_AGENT = 'Threshold-sign-in'
const TOKEN_TYPE = 'bearer'

interface GithubEmail {
  readonly email?: unknown
  readonly primary?: unknown
  readonly verified?: unknown
}

const timeLimit = (): AbortSignal => AbortSignal.timeout(PROVIDER_TIMEOUT_SECONDS * 1000)

async function jsonOf (response: Response, what: string): Promise<unknown> {
  if (!response.ok) throw new Error(`GitHub's ${what} answered ${response.status}`)
  try {
    return await response.json()
  } catch {
    throw new Error(`GitHub's ${what} answered with something other than JSON`)
  }
}

/**
 * A GitHub OAuth app ("Authorizing OAuth apps"): the web application flow with state and PKCE (S256); no
 * ID token, so no nonce. The code is exchanged for an access token (an error comes as a 200 with `error`),
 * then the REST API names the user (`/user`: the numeric `id`, which a rename does not change, is the
 * subject) and the addresses (`/user/emails`): the primary one, verified only if GitHub says `verified`.
 * A verified address that is not the primary is not taken: the primary is the one the visitor chose.
 * Redirects are not followed: every address called is one the operator configured.
 */
export const githubClient: SocialClientFactory<GithubConnection> = (connection, urls) => {
  const endpoint = (base: string, path: string, what: string): URL => checkedProviderUrl(endpointOf(base, path), what, isInsecureLoopback(base))
  const authorizationEndpoint = endpoint(connection.baseUrl, '/login/oauth/authorize', 'authorization endpoint')
  const tokenEndpoint = endpoint(connection.baseUrl, '/login/oauth/access_token', 'token endpoint')
  const userEndpoint = endpoint(connection.apiUrl, '/user', 'user endpoint')
  const emailsEndpoint = endpoint(connection.apiUrl, '/user/emails', 'emails endpoint')

  async function accessToken (code: string, codeVerifier: string): Promise<string> {
    const response = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': USER_AGENT },
      body: new URLSearchParams({
        client_id: connection.clientId, client_secret: connection.clientSecret, code, redirect_uri: urls.callback, code_verifier: codeVerifier
      }),
      redirect: 'error',
      signal: timeLimit()
    })
    const body = await jsonOf(response, 'token endpoint') as { error?: unknown, access_token?: unknown, token_type?: unknown } | null
    // GitHub answers a refused exchange (a used or wrong code, a wrong secret) with 200 and `error`.
    if (body?.error !== undefined) throw new Error(`GitHub's token endpoint answered ${quotedErrorCode(body.error)}`)
    if (typeof body?.access_token !== 'string' || body.access_token === '') throw new Error('GitHub\'s token endpoint returned no access token')
    if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== TOKEN_TYPE) throw new Error('GitHub\'s token endpoint returned another kind of token')
    return body.access_token
  }

  const api = async (url: URL, token: string, what: string): Promise<unknown> => jsonOf(await fetch(url, {
    headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${token}`, 'x-github-api-version': GITHUB_API_VERSION, 'user-agent': USER_AGENT },
    redirect: 'error',
    signal: timeLimit()
  }), what)

  return {
    async begin () {
      const secrets = { state: oidc.randomState(), codeVerifier: oidc.randomPKCECodeVerifier(), nonce: null }
      const url = new URL(authorizationEndpoint)
      url.search = new URLSearchParams({
        client_id: connection.clientId,
        redirect_uri: urls.callback,
        scope: GITHUB_SCOPE,
        state: secrets.state,
        code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
        code_challenge_method: 'S256'
      }).toString()
      return { url: url.href, secrets }
    },

    async finish (answer, secrets): Promise<SocialIdentity> {
      const code = authorizationCodeOf(answer)
      if (answer.get('state') !== secrets.state) throw new Error('GitHub\'s answer carries another state')
      const token = await accessToken(code, secrets.codeVerifier)
      const user = await api(userEndpoint, token, 'user endpoint') as { id?: unknown, name?: unknown } | null
      if (typeof user?.id !== 'number' || !Number.isSafeInteger(user.id) || user.id <= 0) throw new Error('GitHub named no user id')
      const emails = await api(emailsEndpoint, token, 'emails endpoint')
      if (!Array.isArray(emails)) throw new Error('GitHub\'s emails endpoint answered with something other than a list')
      const primary = (emails as GithubEmail[]).find((entry) => entry?.primary === true && typeof entry.email === 'string' && entry.email !== '')
      const name = typeof user.name === 'string' && user.name.trim() !== '' ? user.name.trim() : null
      return {
        subject: String(user.id),
        email: (primary?.email as string | undefined) ?? null,
        emailVerified: primary?.verified === true,
        // GitHub keeps one display name, not its parts.
        firstName: name,
        lastName: null
      }
    }
  }
}
