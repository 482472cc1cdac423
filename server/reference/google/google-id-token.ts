import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import { createHash, timingSafeEqual } from 'node:crypto'
import type { AccountStore } from '../store/account-store.js'

/** Issuers Google uses in ID tokens. */
const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com']

interface GoogleIdentity {
  readonly subject: string
  readonly email: string
  /**
   * Whether the token carried the nonce of the page that sent it: only then
   * was it asked for in this browser. A token without one (allowed unless
   * GOOGLE_REQUIRE_NONCE) may come from any client on the same Google client
   * id, a sibling product's page for one: it signs in, but proves nothing
   * of this browser (docs/account-changes.md).
   */
  readonly boundToPage: boolean
}

type GoogleVerification = { readonly identity: GoogleIdentity } | { readonly refused: string }

/**
 * What a Google sign-in sends: the ID token (the bearer) and the nonce
 * secret of the page that asked for it (`google_nonce_secret` in the body),
 * when the page sent one.
 */
export interface GoogleCredential {
  readonly idToken: string | null
  readonly nonceSecret: string | null
}

export type GoogleTokenVerifier = (credential: GoogleCredential) => Promise<GoogleVerification>

/** A nonce secret is 32 random bytes in base64url (43 characters); anything far longer is not one. */
export const NONCE_SECRET_MAX_LENGTH = 128

/**
 * The nonce a page passes to Google Identity Services for its secret: the
 * SHA-256 of the secret, base64url. The token carries only this hash, so
 * whoever holds the token alone cannot say the secret.
 */
export function googleNonceFor (nonceSecret: string): string {
  return createHash('sha256').update(nonceSecret).digest('base64url')
}

/**
 * Whether the token's nonce binds it to the page that sent `nonceSecret`:
 * a token with a nonce needs the secret it was made from; a token without
 * one is taken only when nonces are not required (a client other than the
 * page, which may not carry one).
 */
function nonceRefusal (nonce: unknown, nonceSecret: string | null, requireNonce: boolean): string | null {
  if (nonce === undefined) return requireNonce ? 'the token has no nonce (GOOGLE_REQUIRE_NONCE)' : null
  if (typeof nonce !== 'string') return 'the token has a nonce that is not text'
  if (nonceSecret === null) return 'the token has a nonce, and no nonce secret came with it'
  const expected = Buffer.from(googleNonceFor(nonceSecret))
  const actual = Buffer.from(nonce)
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? null : 'the token was asked for by another page (nonce)'
}

/** Seconds of clock difference allowed on a token's times; a spent token is remembered this long past its expiry. */
const GOOGLE_CLOCK_TOLERANCE_S = 60

/**
 * What a spent token is remembered by: its `jti` (Google sets one), else a
 * hash of what its signature covers. Not of the whole token: a signature's
 * base64url text can be spelt in more than one way that decodes alike.
 */
function googleTokenKey (idToken: string, payload: JWTPayload): string {
  if (typeof payload.jti === 'string' && payload.jti !== '') return `jti:${payload.jti}`
  const signed = idToken.slice(0, idToken.lastIndexOf('.'))
  return `sha256:${createHash('sha256').update(signed).digest('base64url')}`
}

export interface GoogleTokenVerifierOptions {
  /** GOOGLE_CLIENT_ID; null: Google sign-in is off. */
  readonly clientId: string | null
  readonly jwksUrl: string
  /** GOOGLE_REQUIRE_NONCE: refuse tokens without a nonce (only the page signs in with Google). */
  readonly requireNonce?: boolean
  /** Where spent tokens are remembered: shared by every instance that shares the store. */
  readonly store: Pick<AccountStore, 'spendGoogleToken'>
  readonly now?: () => number
}

/**
 * Verifies a Google ID token: its signature against Google's key set (the URL
 * is configurable so tests use a local one), the issuer, the audience (our
 * client id, and the authorised party when there are several audiences), the
 * expiry, that Google verified the email address, and that its nonce is
 * the one of the page that sent it (`nonceRefusal`); then spends it, so
 * that it is accepted once (a token caught on its way, or sent twice, is
 * refused the second time).
 */
export function createGoogleTokenVerifier (options: GoogleTokenVerifierOptions): GoogleTokenVerifier {
  const now = options.now ?? Date.now
  const keySet = createRemoteJWKSet(new URL(options.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 })
  return async function verifyGoogleIdToken ({ idToken, nonceSecret }) {
    if (options.clientId === null) return { refused: 'Google sign-in is not configured.' }
    if (idToken === null) return { refused: 'no bearer token' }
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
    // Core's ID token validation): one issued to another client that merely lists ours is not ours to accept.
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== options.clientId) {
      return { refused: 'the token was issued to another client (azp)' }
    }
    if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') return { refused: 'the token has no subject or email' }
    if (payload.email_verified !== true) return { refused: 'Google has not verified this email address' }
    const refusal = nonceRefusal(payload.nonce, nonceSecret, options.requireNonce ?? false)
    if (refusal !== null) return { refused: refusal }
    // Last: a token refused above is not spent (it would be refused again anyway). A store that
    // fails throws: that is an error of ours, not a refusal of the token.
    const spentUntil = (payload.exp! + GOOGLE_CLOCK_TOLERANCE_S) * 1000
    if (!await options.store.spendGoogleToken(googleTokenKey(idToken, payload), spentUntil, now())) {
      return { refused: 'the token was used before' }
    }
    return { identity: { subject: payload.sub, email: payload.email, boundToPage: payload.nonce !== undefined } }
  }
}
