import { cookieValue } from '../http/cookie-header.js'
import type { AuthTokenClaims, TokenService } from '../sessions/tokens.js'

/** The page's token cookies (docs/reference-service.md): the provider reads them, never sets them. */
const AUTH_COOKIE = 'auth'
const REFRESH_COOKIE = 'refresh'

/** The bounds of a cookie value worth reading: a token, never a long header's worth. */
const TOKEN_MAX_LENGTH = 8192

/**
 * The page's live session in this browser, if any: the `auth` cookie's token
 * verifies and its session (the refresh family) is not revoked; or, once that
 * token has expired, the `refresh` cookie names a live session (read, not
 * rotated: the page rotates it). Null when neither holds.
 */
export async function livePageSession (cookieHeader: string | undefined, tokens: TokenService): Promise<AuthTokenClaims | null> {
  const auth = cookieValue(cookieHeader, AUTH_COOKIE)
  if (auth !== undefined && auth.length <= TOKEN_MAX_LENGTH) {
    const claims = await tokens.verifyAuthToken(auth)
    if (claims !== null) return await tokens.isSessionLive(claims.sessionId) ? claims : null
  }
  const refresh = cookieValue(cookieHeader, REFRESH_COOKIE)
  if (refresh === undefined || refresh.length > TOKEN_MAX_LENGTH) return null
  return await tokens.sessionOfRefreshToken(refresh)
}
