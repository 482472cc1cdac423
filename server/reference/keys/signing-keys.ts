import type { JWK } from 'jose'
import {
  importSigningKey,
  SIGNING_ALGORITHM,
  loadOrCreateStoredKey,
  readRetiredKeys,
  readStoredKey,
  retiredKeysFile,
  signingKeyFile,
  type SigningKey,
  type StoredKey
} from './signing-key.js'

/** How long the key set may be cached (the JWKS route's max-age): a new key is published this long (and more) before it signs. */
export const KEY_SET_MAX_AGE_SECONDS = 300

/** How often a running service reads DATA_DIR/keys again, so that it picks up a rotation without a restart. */
export const KEY_RELOAD_INTERVAL_MS = 60_000

interface LoadedKey {
  readonly key: SigningKey
  /** The private JWK as stored, for a signer that takes keys as JWKs (the OpenID Connect provider). */
  readonly jwk: JWK
  readonly signsFrom: number
  /** Null for the current key; for a retired one, when it leaves the key set. */
  readonly keepUntil: number | null
  readonly retiredAt: number | null
}

/**
 * The signing keys of DATA_DIR/keys as the service uses them: the key that
 * signs now, and the key set it publishes. After a rotation
 * (signing-key-rotation.ts) the new key is published at once but signs only
 * from its `signsFrom`, once every verifier's cached key set has it; the old
 * key signs until then and stays published until its last token has expired.
 */
export class SigningKeys {
  private constructor (private readonly dataDir: string, private keys: readonly LoadedKey[]) {}

  /** Loads the keys, making the first one on first start. */
  static async open (dataDir: string): Promise<SigningKeys> {
    return new SigningKeys(dataDir, await SigningKeys.read(dataDir, await loadOrCreateStoredKey(dataDir)))
  }

  private static async read (dataDir: string, current: StoredKey): Promise<LoadedKey[]> {
    const retired = await readRetiredKeys(dataDir)
    return [
      { key: await importSigningKey(signingKeyFile(dataDir), current.jwk), jwk: current.jwk, signsFrom: current.signsFrom, keepUntil: null, retiredAt: null },
      ...await Promise.all(retired.map(async (entry) => ({
        key: await importSigningKey(retiredKeysFile(dataDir), entry.jwk),
        jwk: entry.jwk,
        signsFrom: entry.signsFrom,
        keepUntil: entry.keepUntil,
        retiredAt: entry.retiredAt
      })))
    ]
  }

  /**
   * Reads the files again (a rotation may have changed them); throws, keeping
   * the keys it had, if they cannot be read. A key file that has gone is not
   * made again here: only a start makes the first key.
   */
  async reload (): Promise<void> {
    const current = await readStoredKey(this.dataDir)
    if (current === null) throw new Error(`the signing key ${signingKeyFile(this.dataDir)} has gone`)
    this.keys = await SigningKeys.read(this.dataDir, current)
  }

  /** The newest key (the current file's), whether or not it signs yet. */
  get newest (): SigningKey {
    return this.keys[0]!.key
  }

  /** The key that signs at `now`: of those whose time has come and not passed, the one that started last. */
  signer (now: number): SigningKey {
    let chosen: LoadedKey | undefined
    for (const loaded of this.keys) {
      const started = loaded.signsFrom <= now
      const stillSigning = loaded.retiredAt === null || loaded.retiredAt > now
      if (started && stillSigning && (chosen === undefined || loaded.signsFrom > chosen.signsFrom)) chosen = loaded
    }
    // A clock set before every key's start: the newest key rather than none.
    return (chosen ?? this.keys[0]!).key
  }

  /**
   * The private JWKs of the key set at `now`, the one that signs first: the
   * OpenID Connect provider (server/reference/oidc/) signs with its first key
   * and publishes them all, so that its key set is this one.
   */
  privateKeySet (now: number): JWK[] {
    const signer = this.signer(now)
    const published = new Set(this.keySet(now).map((jwk) => jwk.kid))
    const chosen = new Map<string, JWK>()
    for (const loaded of [...this.keys.filter((candidate) => candidate.key === signer), ...this.keys]) {
      const { signsFrom: _signsFrom, ...jwk } = loaded.jwk as JWK & { signsFrom?: number }
      if ((loaded.key === signer || published.has(loaded.key.kid)) && !chosen.has(loaded.key.kid)) {
        chosen.set(loaded.key.kid, { ...jwk, kid: loaded.key.kid, alg: SIGNING_ALGORITHM, use: 'sig' })
      }
    }
    return [...chosen.values()]
  }

  /** The public keys verifiers need at `now`: the current one, and each retired one until its last token has expired. */
  keySet (now: number): JWK[] {
    const published = new Map<string, JWK>()
    for (const loaded of this.keys) {
      if (loaded.keepUntil === null || loaded.keepUntil > now) {
        if (!published.has(loaded.key.kid)) published.set(loaded.key.kid, loaded.key.publicJwk)
      }
    }
    return [...published.values()]
  }
}
