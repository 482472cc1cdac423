import { importPKCS8, SignJWT, type CryptoKey } from 'jose'
import type { AppleConnection } from '../../../shared/social/social-connections.js'

/**
 * How long a client secret is good for. Apple takes up to six months; a few minutes is all one code
 * exchange needs, and a secret that leaks (a log, a proxy) is worthless soon after.
 */
const CLIENT_SECRET_LIFETIME_SECONDS = 5 * 60
/** A cached secret is replaced when less than this is left, so none expires on its way to Apple. */
const CLIENT_SECRET_RENEWAL_SECONDS = 60

/**
 * Sign in with Apple's client secret ("Generate and validate tokens", "Creating the client secret"): a JWT
 * signed ES256 with the operator's key from Apple's developer account, `kid` its Key ID, `iss` the Team ID,
 * `sub` the client id (the Services ID), `aud` Apple's issuer. Made on demand and kept until near its expiry.
 */
export function appleClientSecrets (connection: AppleConnection, now: () => number): () => Promise<string> {
  let key: Promise<CryptoKey> | null = null
  let cached: { readonly jwt: string, readonly expires: number } | null = null
  return async () => {
    const seconds = Math.floor(now() / 1000)
    if (cached !== null && cached.expires - seconds > CLIENT_SECRET_RENEWAL_SECONDS) return cached.jwt
    key ??= importPKCS8(connection.privateKey, 'ES256')
    const expires = seconds + CLIENT_SECRET_LIFETIME_SECONDS
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: connection.keyId })
      .setIssuer(connection.teamId)
      .setSubject(connection.clientId)
      .setAudience(connection.issuer)
      .setIssuedAt(seconds)
      .setExpirationTime(expires)
      .sign(await key)
    cached = { jwt, expires }
    return jwt
  }
}
