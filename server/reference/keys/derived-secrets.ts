import { hkdfSync, randomUUID } from 'node:crypto'
import { link, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Secrets for one purpose each (HMAC keys), derived from one root secret kept in DATA_DIR/keys. */
export interface DerivedSecrets {
  /** 32 bytes for `purpose`, the same on every instance that shares the root secret, and across restarts. */
  derive (purpose: string): Buffer
}

/** The root secret's file, beside the signing key. */
export function rootSecretFile (dataDir: string): string {
  return join(dataDir, 'keys', 'derivation-secret')
}

/** HKDF-SHA-256 of the root with `purpose` as its info: what the signing key's deriveSecret did before. */
function deriveFrom (root: Buffer): DerivedSecrets {
  return { derive: (purpose) => Buffer.from(hkdfSync('sha256', root, 'threshold', purpose, 32)) }
}

/**
 * Loads the root secret, making it on first start from `seed`: the private
 * bytes of the signing key found then. Secrets were once derived from the
 * signing key itself; seeding the root with them keeps every secret derived
 * before (browser cookies stay recognised), and instances that start at once,
 * or that have the key file but not this one, all arrive at the same root.
 * From then on it is its own file, so that rotating the signing key changes
 * no derived secret. Readable by its owner only; where the folder is read-only
 * (a key mounted from a secret manager), the seed is used without a file.
 */
export async function loadOrCreateDerivedSecrets (dataDir: string, seed: Buffer): Promise<DerivedSecrets> {
  const file = rootSecretFile(dataDir)
  try {
    return deriveFrom(parseRootSecret(file, await readFile(file, 'utf8')))
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error
  }
  const draft = `${file}.${randomUUID()}.tmp`
  try {
    // Written whole under a private name, then linked into place, as the signing key is.
    await writeFile(draft, seed.toString('base64url'), { mode: 0o600, flag: 'wx' })
  } catch (error) {
    if (['EACCES', 'EROFS', 'EPERM'].includes((error as { code?: string }).code ?? '')) return deriveFrom(seed)
    throw error
  }
  try {
    await link(draft, file)
    return deriveFrom(seed)
  } catch (linkError) {
    if ((linkError as { code?: string }).code !== 'EEXIST') throw linkError
    return deriveFrom(parseRootSecret(file, await readFile(file, 'utf8')))
  } finally {
    await unlink(draft)
  }
}

/** A damaged root secret is reported, never replaced: the pseudonyms and cookies made with it would change. */
function parseRootSecret (file: string, text: string): Buffer {
  const root = Buffer.from(text.trim(), 'base64url')
  if (root.length < 32) throw new Error(`the secret in ${file} is not 32 bytes of base64url; restore it from a backup`)
  return root
}
