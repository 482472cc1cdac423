/**
 * The nonce that binds a Google ID token to the page that asked for it. The
 * secret stays in the page's memory and goes only to the accounts service,
 * with the token; Google receives its SHA-256 and writes that into the token.
 * Whoever catches the token alone cannot say the secret, so cannot use it.
 */
export interface GoogleNonce {
  /** Sent as `google_nonce_secret` with the credential. */
  readonly secret: string
  /** Given to Google Identity Services' initialize. */
  readonly nonce: string
}

function base64url (bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/**
 * A new secret and its nonce; null where the browser has no Web Crypto
 * digest (a page served over plain HTTP from a host other than localhost,
 * where Google sign-in does not work either): the token then has no nonce.
 */
export async function newGoogleNonce (): Promise<GoogleNonce | null> {
  const subtle = globalThis.crypto?.subtle as SubtleCrypto | undefined
  if (subtle === undefined) return null
  const secret = base64url(crypto.getRandomValues(new Uint8Array(32)))
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(secret))
  return { secret, nonce: base64url(new Uint8Array(digest)) }
}
