import { createHmac, randomInt, timingSafeEqual } from 'node:crypto'
import { EMAIL_CODE_ALPHABET, EMAIL_CODE_LENGTH } from '../../../common/email-codes/email-code-format.js'
import { addressRange, normaliseAddress } from '../../shared/address-range.js'
import { emailKey } from '../../shared/email-key.js'

/** The derived secret (server/reference/keys/derived-secrets.ts) every emailed code's HMACs are keyed with. */
export const EMAIL_CODE_PURPOSE = 'email-codes'

/** A new code: EMAIL_CODE_LENGTH characters of EMAIL_CODE_ALPHABET, each drawn uniformly by the system's generator. */
export function newEmailCode (): string {
  let code = ''
  for (let index = 0; index < EMAIL_CODE_LENGTH; index++) code += EMAIL_CODE_ALPHABET[randomInt(EMAIL_CODE_ALPHABET.length)]
  return code
}

/**
 * What the store keeps of a code, its address and where it was asked from:
 * HMACs under one secret, so that a copy of the database gives neither the
 * codes (8 characters are few enough to try all of them against a plain
 * hash) nor the addresses that asked (an unknown one has no account row).
 */
export class EmailCodeHasher {
  constructor (private readonly key: Buffer) {}

  private mac (...parts: readonly string[]): string {
    return createHmac('sha256', this.key).update(parts.join('\0')).digest('base64url')
  }

  /** The address as the codes are filed under it: any case of it alike (server/shared/email-key.ts). */
  address (email: string): string {
    return this.mac('address', emailKey(email))
  }

  /**
   * A normalised code (normalizeEmailCode) for the address: the same code for another address hashes
   * otherwise. Bound to the address as it was written (`email`), not only to its key: a code mailed to
   * one spelling (a full-width or differently cased local part, another mailbox at some providers)
   * must not sign up the address another spelling of it names. The domain is read in any case, as mail
   * reads it.
   */
  code (addressHash: string, email: string, code: string): string {
    const at = email.lastIndexOf('@')
    return this.mac('code', addressHash, `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`, code)
  }

  /** The client's address range (an IPv4 address, an IPv6 /64: server/shared/address-range.ts), for the range's bound on sends. */
  range (clientAddress: string): string {
    const normalised = normaliseAddress(clientAddress)
    return this.mac('range', normalised === null ? clientAddress : addressRange(normalised))
  }
}

/** Whether two hashes are the same, compared in constant time. */
export function sameHash (actual: string, expected: string): boolean {
  const a = Buffer.from(actual)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
