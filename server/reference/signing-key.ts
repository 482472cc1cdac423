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

/**
 * Loads the Ed25519 signing key from `DATA_DIR/keys/`, making it on first
 * start. The private key file is readable by its owner only.
 */
export async function loadOrCreateSigningKey (dataDir: string): Promise<SigningKey> {
  const folder = join(dataDir, 'keys')
  const file = join(folder, 'auth-signing-key.jwk.json')
  let jwk: JWK
  try {
    jwk = parseKeyFile(file, await readFile(file, 'utf8'))
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error
    const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true })
    jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM, use: 'sig' }
    await mkdir(folder, { recursive: true, mode: 0o700 })
    // Written whole under a private name, then linked into place: link() fails
    // if another process got there first, and nobody ever reads a half-written key.
    const draft = `${file}.${randomUUID()}.tmp`
    await writeFile(draft, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' })
    try {
      await link(draft, file)
    } catch (linkError) {
      if ((linkError as { code?: string }).code !== 'EEXIST') throw linkError
      jwk = parseKeyFile(file, await readFile(file, 'utf8'))
    } finally {
      await unlink(draft)
    }
  }
  const { d: privateBytes, ...publicJwk } = jwk
  return {
    derivationSeed: Buffer.from(String(privateBytes), 'base64url'),
    kid: String(jwk.kid),
    privateKey: await importJWK(jwk, SIGNING_ALGORITHM).catch((importError: Error) => {
      throw new Error(`the signing key in ${file} cannot be used (${importError.message}); restore it from a backup`)
    }) as CryptoKey,
    publicJwk: { ...publicJwk, alg: SIGNING_ALGORITHM, use: 'sig' }
  }
}

/** A damaged key file is reported, never replaced: every token it signed would stop verifying. */
function parseKeyFile (file: string, text: string): JWK {
  try {
    const jwk = JSON.parse(text) as JWK
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string') throw new Error('not an Ed25519 private key')
    return jwk
  } catch (error) {
    throw new Error(`the signing key in ${file} cannot be read (${(error as Error).message}); restore it from a backup`)
  }
}
