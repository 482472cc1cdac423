import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'

/**
 * Google ID tokens that Google never issued, for the rows where the backend
 * must refuse one: signed by a key of the check's own (with a `kid` Google's
 * key set does not hold), or not signed at all. The payload is what a real
 * token for the test account would say, so only the signature gives it away.
 */

/** What the page sends beside the token: the secret whose SHA-256 is the token's nonce. */
export interface ForgedGoogleCredential {
  readonly token: string
  readonly nonceSecret: string
}

/** Stands in for the backend's GOOGLE_CLIENT_ID when the operator gives none. */
export const PLACEHOLDER_CLIENT_ID = 'conformance-check.apps.googleusercontent.com'

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url')

function payloadFor (email: string, clientId: string, nonceSecret: string): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000)
  return {
    iss: 'https://accounts.google.com',
    azp: clientId,
    aud: clientId,
    sub: String(BigInt(`0x${randomBytes(8).toString('hex')}`)),
    email,
    email_verified: true,
    nonce: createHash('sha256').update(nonceSecret).digest('base64url'),
    iat: now,
    nbf: now - 60,
    exp: now + 3600,
    jti: randomBytes(16).toString('hex')
  }
}

/** A token for `email`, RS256-signed by a fresh key of the check's own. */
export function forgedGoogleToken (email: string, clientId: string): ForgedGoogleCredential {
  const nonceSecret = randomBytes(24).toString('base64url')
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const header = base64url(JSON.stringify({ alg: 'RS256', kid: randomBytes(20).toString('hex'), typ: 'JWT' }))
  const body = base64url(JSON.stringify(payloadFor(email, clientId, nonceSecret)))
  const signature = sign('sha256', Buffer.from(`${header}.${body}`), privateKey).toString('base64url')
  return { token: `${header}.${body}.${signature}`, nonceSecret }
}

/** A token for `email` that names no algorithm (`alg: none`) and carries no signature. */
export function unsignedGoogleToken (email: string, clientId: string): ForgedGoogleCredential {
  const nonceSecret = randomBytes(24).toString('base64url')
  const header = base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))
  return { token: `${header}.${base64url(JSON.stringify(payloadFor(email, clientId, nonceSecret)))}.`, nonceSecret }
}
