import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The key that signs auth tokens, and its public half for the key set. */
export interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicJwk: JWK
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
    jwk = JSON.parse(await readFile(file, 'utf8')) as JWK
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error
    const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true })
    jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM, use: 'sig' }
    await mkdir(folder, { recursive: true, mode: 0o700 })
    // wx: two processes starting at once must not overwrite each other's key.
    await writeFile(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' }).catch(async (writeError: { code?: string }) => {
      if (writeError.code !== 'EEXIST') throw writeError
      jwk = JSON.parse(await readFile(file, 'utf8')) as JWK
    })
  }
  const { d: _private, ...publicJwk } = jwk
  return {
    kid: String(jwk.kid),
    privateKey: await importJWK(jwk, SIGNING_ALGORITHM) as CryptoKey,
    publicJwk: { ...publicJwk, alg: SIGNING_ALGORITHM, use: 'sig' }
  }
}
