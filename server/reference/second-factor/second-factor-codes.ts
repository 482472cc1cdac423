import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomInt } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'

/**
 * The cryptography of the second factor (docs/second-factor.md): TOTP per
 * RFC 6238 as authenticator apps compute it, the secret encrypted at rest,
 * and recovery codes kept as keyed hashes.
 */

/** RFC 6238's parameters every authenticator app knows: SHA-1, 30-second steps, 6 digits. */
const TOTP_PERIOD_SECONDS = 30
const TOTP_DIGITS = 6
/** Codes of the step before and after are accepted too: the phone's clock and the typing take time. */
const TOTP_WINDOW = 1
const RECOVERY_CODE_COUNT = 10

/** The derived-secret purposes (server/reference/keys/derived-secrets.ts) of the two keys. */
export const SECOND_FACTOR_ENCRYPTION_PURPOSE = 'second-factor-secret-encryption'
export const RECOVERY_CODE_PURPOSE = 'second-factor-recovery-codes'

/**
 * Crockford's base32, lower case: digits and the letters but i, l, o and u,
 * 5 bits a character. What looks alike is read alike (o as 0, i and l as 1).
 */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const RECOVERY_CODE_SHAPE = new RegExp(`^[${RECOVERY_ALPHABET}]{4}-?[${RECOVERY_ALPHABET}]{4}$`)

/** A TOTP generator for `secret` (base32), labelled for the authenticator app. */
export function totpFor (secretBase32: string, issuer: string, label: string): TOTP {
  return new TOTP({
    issuer, label, secret: Secret.fromBase32(secretBase32), algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS
  })
}

/**
 * The time step of `code` for `secret` at `now` (within ±TOTP_WINDOW), or
 * null when the code is wrong. The step lets the store refuse a code used before.
 */
export function matchingStep (secretBase32: string, code: string, now: number): number | null {
  const delta = TOTP.validate({
    token: code, secret: Secret.fromBase32(secretBase32), algorithm: 'SHA1', digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS, timestamp: now, window: TOTP_WINDOW
  })
  return delta === null ? null : TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now }) + delta
}

/** Encrypts and decrypts authenticator secrets with AES-256-GCM under a derived key. */
export class SecretBox {
  constructor (private readonly key: Buffer) {}

  /** `v1.<iv>.<ciphertext>.<tag>`, base64url; the account id is bound in as associated data. */
  seal (plain: string, accountId: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(accountId))
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return ['v1', iv, sealed, cipher.getAuthTag()].map((part) => typeof part === 'string' ? part : part.toString('base64url')).join('.')
  }

  /** The plain text; throws when the text was changed, belongs to another account or another key. */
  open (sealed: string, accountId: string): string {
    const [version, iv, data, tag] = sealed.split('.')
    if (version !== 'v1' || iv === undefined || data === undefined || tag === undefined) throw new Error('not a sealed second-factor secret')
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url')).setAAD(Buffer.from(accountId))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
  }
}

/** Ten new recovery codes, `xxxx-xxxx` from a 32-letter alphabet: 40 random bits each. */
export function newRecoveryCodes (): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const letters = Array.from({ length: 8 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('')
    return `${letters.slice(0, 4)}-${letters.slice(4)}`
  })
}

/** A recovery code as typed (any case, spaces, with or without its hyphen) in its one form; null when it has not the shape. */
export function normaliseRecoveryCode (typed: string): string | null {
  const code = typed.toLowerCase().replace(/\s+/g, '').replace(/o/g, '0').replace(/[il]/g, '1')
  if (!RECOVERY_CODE_SHAPE.test(code)) return null
  return code.replace('-', '')
}

/**
 * Recovery codes are kept as HMAC-SHA-256 under a derived key. A slow hash
 * (scrypt) is not needed: the codes are random, not chosen by people, so
 * there is no dictionary to try, and online guessing is throttled; the key
 * (kept in DATA_DIR/keys, not in the database) means a copy of the database
 * alone is not enough to try all 2^40 codes offline.
 */
export class RecoveryCodeHasher {
  constructor (private readonly key: Buffer) {}

  /** The hash of a normalised code (normaliseRecoveryCode). */
  hash (normalised: string): string {
    return createHmac('sha256', this.key).update(normalised).digest('base64url')
  }
}
