import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import { randomUUID } from 'node:crypto'
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The key that signs auth tokens, and its public half for the key set. */
export interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicJwk: JWK
  /**
   * The private key's bytes: the seed of the root secret that HMAC keys are
   * derived from, when that is made (derived-secrets.ts), so that secrets
   * derived from the key before stay the same.
   */
  readonly derivationSeed: Buffer
}

export const SIGNING_ALGORITHM = 'EdDSA'

/** The current key's file: the newest key, which signs from its `signsFrom` (epoch ms; absent: always). */
export function signingKeyFile (dataDir: string): string {
  return join(dataDir, 'keys', 'auth-signing-key.jwk.json')
}

/** Keys a rotation replaced, each kept (private half included, to sign until its successor starts) until `keepUntil`. */
export function retiredKeysFile (dataDir: string): string {
  return join(dataDir, 'keys', 'retired-signing-keys.json')
}

/** A private key as stored: the JWK, and from when it signs. */
export interface StoredKey {
  readonly jwk: JWK
  /** Epoch ms from which it signs (0: from the start). */
  readonly signsFrom: number
}

/** A key a rotation replaced. */
export interface RetiredKey extends StoredKey {
  /** When its successor starts signing: it signs no token from then. */
  readonly retiredAt: number
  /** When the last token it signed has expired: its public half leaves the key set then. */
  readonly keepUntil: number
}

/**
 * Loads the current Ed25519 signing key from `DATA_DIR/keys/`, making it on
 * first start. The private key file is readable by its owner only.
 */
export async function loadOrCreateSigningKey (dataDir: string): Promise<SigningKey> {
  return importSigningKey(signingKeyFile(dataDir), (await loadOrCreateStoredKey(dataDir)).jwk)
}

/** The current key as stored, made on first start. */
export async function loadOrCreateStoredKey (dataDir: string): Promise<StoredKey> {
  const file = signingKeyFile(dataDir)
  const stored = await readStoredKey(dataDir)
  if (stored !== null) return stored
  const jwk = await newPrivateJwk()
  await mkdir(join(dataDir, 'keys'), { recursive: true, mode: 0o700 })
  // Written whole under a private name, then linked into place: link() fails
  // if another process got there first, and nobody ever reads a half-written key.
  const draft = `${file}.${randomUUID()}.tmp`
  await writeFile(draft, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' })
  try {
    await link(draft, file)
    return { jwk, signsFrom: 0 }
  } catch (linkError) {
    if ((linkError as { code?: string }).code !== 'EEXIST') throw linkError
    return parseKeyFile(file, await readFile(file, 'utf8'))
  } finally {
    await unlink(draft)
  }
}

/** The current key as stored, or null where there is none (DATA_DIR wrong, or never started). */
export async function readStoredKey (dataDir: string): Promise<StoredKey | null> {
  const file = signingKeyFile(dataDir)
  try {
    return parseKeyFile(file, await readFile(file, 'utf8'))
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null
    throw error
  }
}

/** A new Ed25519 private key as a JWK, with a kid of its own. */
export async function newPrivateJwk (): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true })
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM, use: 'sig' }
}

/** The key a stored JWK holds, ready to sign. */
export async function importSigningKey (file: string, jwk: JWK): Promise<SigningKey> {
  const { d: privateBytes, ...publicJwk } = jwk
  return {
    derivationSeed: Buffer.from(String(privateBytes), 'base64url'),
    kid: String(jwk.kid),
    privateKey: await importJWK(jwk, SIGNING_ALGORITHM).catch((importError: Error) => {
      throw new Error(`the signing key in ${file} cannot be used (${importError.message}); restore it from a backup`)
    }) as CryptoKey,
    publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, kid: String(jwk.kid), alg: SIGNING_ALGORITHM, use: 'sig' }
  }
}

function checkPrivateJwk (jwk: JWK): void {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.kid !== 'string') {
    throw new Error('not an Ed25519 private key with a kid')
  }
}

/** A damaged key file is reported, never replaced: every token it signed would stop verifying. */
function parseKeyFile (file: string, text: string): StoredKey {
  try {
    const { signsFrom, ...jwk } = JSON.parse(text) as JWK & { signsFrom?: unknown }
    checkPrivateJwk(jwk)
    if (signsFrom !== undefined && !Number.isSafeInteger(signsFrom)) throw new Error('signsFrom is not a time')
    return { jwk, signsFrom: (signsFrom as number | undefined) ?? 0 }
  } catch (error) {
    throw new Error(`the signing key in ${file} cannot be read (${(error as Error).message}); restore it from a backup`)
  }
}

/** The keys a rotation replaced; none when there was no rotation. */
export async function readRetiredKeys (dataDir: string): Promise<RetiredKey[]> {
  const file = retiredKeysFile(dataDir)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return []
    throw error
  }
  try {
    const entries = JSON.parse(text) as unknown
    if (!Array.isArray(entries)) throw new Error('not a list')
    return entries.map((entry: RetiredKey) => {
      checkPrivateJwk(entry.jwk)
      for (const time of [entry.signsFrom, entry.retiredAt, entry.keepUntil]) {
        if (!Number.isSafeInteger(time)) throw new Error('a time is missing')
      }
      return { jwk: entry.jwk, signsFrom: entry.signsFrom, retiredAt: entry.retiredAt, keepUntil: entry.keepUntil }
    })
  } catch (error) {
    throw new Error(`the retired signing keys in ${file} cannot be read (${(error as Error).message}); restore the file from a backup`)
  }
}
