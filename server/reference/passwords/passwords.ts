import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/** log2 of scrypt's N that OWASP recommends (Password Storage Cheat Sheet). */
export const OWASP_SCRYPT_COST = 17

/** scrypt parameters for a cost (log2 N), with OWASP's r = 8 and p = 1. */
export function scryptParametersForCost (cost: number): ScryptParameters {
  return Object.freeze({ N: 2 ** cost, r: 8, p: 1 })
}

/**
 * The parameters OWASP recommends: N = 2^17, r = 8, p = 1, which takes 128 MiB
 * and a few hundred milliseconds per hash.
 */
export const SCRYPT_PARAMETERS = scryptParametersForCost(OWASP_SCRYPT_COST)
const KEY_BYTES = 32
const SALT_BYTES = 16
const PREFIX = 'scrypt'

export interface ScryptParameters { readonly N: number, readonly r: number, readonly p: number }

function derive (password: string, salt: Buffer, parameters: ScryptParameters): Promise<Buffer> {
  const options: ScryptOptions = { ...parameters, maxmem: 256 * parameters.N * parameters.r + 1024 * 1024 }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) => {
      if (error === null) resolve(key)
      else reject(error)
    })
  })
}

function encode (parameters: ScryptParameters, salt: Buffer, key: Buffer): string {
  return `${PREFIX}$N=${parameters.N},r=${parameters.r},p=${parameters.p}$${salt.toString('base64')}$${key.toString('base64')}`
}

function decode (stored: string): { parameters: ScryptParameters, salt: Buffer, key: Buffer } | null {
  const match = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored)
  if (match === null) return null
  return {
    parameters: { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) },
    salt: Buffer.from(match[4]!, 'base64'),
    key: Buffer.from(match[5]!, 'base64')
  }
}

/** Hashes a password with a fresh salt (NFKC-normalised first, as NIST SP 800-63B advises). */
export async function hashPassword (password: string, parameters: ScryptParameters = SCRYPT_PARAMETERS): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  return encode(parameters, salt, await derive(password, salt, parameters))
}

/** Compares in constant time. A malformed stored hash never matches. */
export async function verifyPassword (password: string, stored: string): Promise<boolean> {
  const decoded = decode(stored)
  if (decoded === null) return false
  const key = await derive(password, decoded.salt, decoded.parameters)
  return key.length === decoded.key.length && timingSafeEqual(key, decoded.key)
}

/** Whether a stored hash was made with other parameters than today's. */
export function needsRehash (stored: string, parameters: ScryptParameters = SCRYPT_PARAMETERS): boolean {
  const decoded = decode(stored)
  return decoded === null || decoded.parameters.N !== parameters.N ||
    decoded.parameters.r !== parameters.r || decoded.parameters.p !== parameters.p
}
