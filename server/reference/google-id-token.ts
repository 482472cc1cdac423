import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import { createHash } from 'node:crypto'
import type { AccountStore } from './store/account-store.js'

/** Issuers Google uses in ID tokens. */
export const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com']

export interface GoogleIdentity {
  readonly subject: string
  readonly email: string
}

export type GoogleVerification = { readonly identity: GoogleIdentity } | { readonly refused: string }

export type GoogleTokenVerifier = (idToken: string) => Promise<GoogleVerification>

/** Seconds of clock difference allowed on a token's times; a spent token is remembered this long past its expiry. */
export const GOOGLE_CLOCK_TOLERANCE_S = 60

/**
 * What a spent token is remembered by: its `jti` (Google sets one), else a
 * hash of what its signature covers. Not of the whole token: a signature's
 * base64url text can be spelt in more than one way that decodes alike.
 */
export function googleTokenKey (idToken: string, payload: JWTPayload): string {
  if (typeof payload.jti === 'string' && payload.jti !== '') return `jti:${payload.jti}`
  const signed = idToken.slice(0, idToken.lastIndexOf('.'))
  return `sha256:${createHash('sha256').update(signed).digest('base64url')}`
}

export interface GoogleTokenVerifierOptions {
  /** GOOGLE_CLIENT_ID; null: Google sign-in is off. */
  readonly clientId: string | null
  readonly jwksUrl: string
  /** Where spent tokens are remembered: shared by every instance that shares the store. */
  readonly store: Pick<AccountStore, 'spendGoogleToken'>
  readonly now?: () => number
}

/**
 * Verifies a Google ID token: its signature against Google's key set (the URL
 * is configurable so tests use a local one), the issuer, the audience (our
 * client id, and the authorised party when there are several audiences), the
 * expiry, and that Google verified the email address; then spends it, so
 * that it is accepted once (a token caught on its way, or sent twice, is
 * refused the second time).
 */
export function createGoogleTokenVerifier (options: GoogleTokenVerifierOptions): GoogleTokenVerifier {
  const now = options.now ?? Date.now
  const keySet = createRemoteJWKSet(new URL(options.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 })
  return async function verifyGoogleIdToken (idToken) {
    if (options.clientId === null) return { refused: 'Google sign-in is not configured.' }
    let payload: JWTPayload
    try {
      payload = (await jwtVerify(idToken, keySet, {
        issuer: GOOGLE_ISSUERS,
        audience: options.clientId,
        algorithms: ['RS256'],
        clockTolerance: GOOGLE_CLOCK_TOLERANCE_S,
        currentDate: new Date(now()),
        // Without an expiry, a token could never be forgotten as spent.
        requiredClaims: ['exp']
      })).payload
    } catch (error) {
      return { refused: `the token did not verify (${(error as { code?: string }).code ?? 'error'})` }
    }
    // A token for several audiences was obtained by whichever client `azp` names (OpenID Connect
    // Core 3.1.3.7): one issued to another client that merely lists ours is not ours to accept.
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== options.clientId) {
      return { refused: 'the token was issued to another client (azp)' }
    }
    if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') return { refused: 'the token has no subject or email' }
    if (payload.email_verified !== true) return { refused: 'Google has not verified this email address' }
    // Last: a token refused above is not spent (it would be refused again anyway). A store that
    // fails throws: that is an error of ours, not a refusal of the token.
    const spentUntil = (payload.exp! + GOOGLE_CLOCK_TOLERANCE_S) * 1000
    if (!await options.store.spendGoogleToken(googleTokenKey(idToken, payload), spentUntil, now())) {
      return { refused: 'the token was used before' }
    }
    return { identity: { subject: payload.sub, email: payload.email } }
  }
}
