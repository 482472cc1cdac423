import { createRemoteJWKSet, jwtVerify } from 'jose'

/** Issuers Google uses in ID tokens. */
export const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com']

export interface GoogleIdentity {
  readonly subject: string
  readonly email: string
}

export type GoogleVerification = { readonly identity: GoogleIdentity } | { readonly refused: string }

export type GoogleTokenVerifier = (idToken: string) => Promise<GoogleVerification>

/**
 * Verifies a Google ID token: its signature against Google's key set (the URL
 * is configurable so tests use a local one), the issuer, the audience (our
 * client id, and the authorised party when there are several audiences), the
 * expiry, and that Google verified the email address.
 */
export function createGoogleTokenVerifier (options: { clientId: string | null, jwksUrl: string }): GoogleTokenVerifier {
  const keySet = createRemoteJWKSet(new URL(options.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 })
  return async function verifyGoogleIdToken (idToken) {
    if (options.clientId === null) return { refused: 'Google sign-in is not configured.' }
    try {
      const { payload } = await jwtVerify(idToken, keySet, {
        issuer: GOOGLE_ISSUERS,
        audience: options.clientId,
        algorithms: ['RS256'],
        clockTolerance: 60
      })
      // A token for several audiences was obtained by whichever client `azp` names (OpenID Connect
      // Core 3.1.3.7): one issued to another client that merely lists ours is not ours to accept.
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== options.clientId) {
        return { refused: 'the token was issued to another client (azp)' }
      }
      if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') return { refused: 'the token has no subject or email' }
      if (payload.email_verified !== true) return { refused: 'Google has not verified this email address' }
      return { identity: { subject: payload.sub, email: payload.email } }
    } catch (error) {
      return { refused: `the token did not verify (${(error as { code?: string }).code ?? 'error'})` }
    }
  }
}
