import { createHmac } from 'node:crypto'
import { emailKey } from '../../shared/email-key.js'

/** What the pseudonym key is derived for (server/reference/keys/derived-secrets.ts). */
export const EMAIL_PSEUDONYM_PURPOSE = 'audit email pseudonym'

/**
 * The short name under which an address appears in the audit log: an HMAC
 * with a key kept beside the signing key, so that whoever reads the log
 * cannot find an address by hashing a list of candidates (an unkeyed hash
 * let them), while the operator, who holds the key, can follow one address
 * through the log and compute the name of any address (`npm run accounts --
 * audit-pseudonym`).
 */
export class EmailPseudonyms {
  constructor (private readonly key: Buffer) {}

  /** 16 hex characters (64 bits) of HMAC-SHA-256 of the address's key (any case, any Unicode form). */
  of (email: string): string {
    return createHmac('sha256', this.key).update(emailKey(email)).digest('hex').slice(0, 16)
  }
}
