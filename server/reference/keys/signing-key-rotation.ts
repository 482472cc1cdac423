import { rename, writeFile } from 'node:fs/promises'
import { randomUUID } from 'node:crypto'
import { AUTH_TOKEN_TTL_SECONDS } from '../sessions/tokens.js'
import { KEY_RELOAD_INTERVAL_MS, KEY_SET_MAX_AGE_SECONDS } from './signing-keys.js'
import {
  newPrivateJwk,
  readRetiredKeys,
  readStoredKey,
  retiredKeysFile,
  signingKeyFile,
  type RetiredKey
} from './signing-key.js'

/** Clocks of the service and of verifiers may differ by this much. */
const CLOCK_MARGIN_MS = 60_000

/**
 * A new key is published this long before it signs: every running instance
 * reads it (KEY_RELOAD_INTERVAL_MS) and every cached key set has expired
 * (KEY_SET_MAX_AGE_SECONDS) before a token carries its kid.
 */
export const KEY_PUBLISH_AHEAD_MS = KEY_SET_MAX_AGE_SECONDS * 1000 + KEY_RELOAD_INTERVAL_MS + CLOCK_MARGIN_MS

/** An operator's mistake the rotation refuses (the admin command prints its message). */
export class RotationRefused extends Error {}

export interface Rotation {
  readonly oldKid: string
  readonly newKid: string
  /** When the new key starts signing. */
  readonly signsFrom: number
  /** When the old key leaves the key set (its last token has expired). */
  readonly oldKeyKeptUntil: number
}

/** Written whole under a private name (0600), then renamed over the file: a reader sees the old file or the new one. */
async function replaceFile (file: string, text: string): Promise<void> {
  const draft = `${file}.${randomUUID()}.tmp`
  await writeFile(draft, text, { mode: 0o600, flag: 'wx' })
  await rename(draft, file)
}

/**
 * Rotates the token signing key of `dataDir`: a new key, published at once
 * and signing from `now + KEY_PUBLISH_AHEAD_MS`; the old key signs until then
 * and stays in the key set until the last token it can have signed has
 * expired (an auth token's lifetime later; refresh tokens are opaque and
 * unsigned, so they are not affected). Refused while an earlier rotation is
 * still under way (its old key still published), unless `force`.
 */
export async function rotateSigningKey (dataDir: string, now: number, options: { force?: boolean } = {}): Promise<Rotation> {
  const current = await readStoredKey(dataDir)
  if (current === null) {
    throw new RotationRefused(`there is no signing key in ${signingKeyFile(dataDir)} (is DATA_DIR right? The service makes the key at its first start)`)
  }
  const retired = await readRetiredKeys(dataDir)
  const pending = [...retired.map((key) => key.keepUntil), current.signsFrom].filter((time) => time > now)
  if (pending.length > 0 && options.force !== true) {
    const until = new Date(Math.max(...pending)).toISOString()
    throw new RotationRefused(`the last rotation is still under way: the key it replaced stays in the key set until ${until}. ` +
      'Rotate again after that, or add --force if the new key must itself be replaced now')
  }
  const jwk = await newPrivateJwk()
  const signsFrom = now + KEY_PUBLISH_AHEAD_MS
  const replaced: RetiredKey = {
    jwk: current.jwk,
    signsFrom: current.signsFrom,
    retiredAt: signsFrom,
    keepUntil: signsFrom + AUTH_TOKEN_TTL_SECONDS * 1000 + CLOCK_MARGIN_MS
  }
  // The retired list first: a service reading between the two writes still has the old key, as current and as retired.
  await replaceFile(retiredKeysFile(dataDir), JSON.stringify([...retired.filter((key) => key.keepUntil > now), replaced]))
  await replaceFile(signingKeyFile(dataDir), JSON.stringify({ ...jwk, signsFrom }))
  return { oldKid: String(current.jwk.kid), newKid: String(jwk.kid), signsFrom, oldKeyKeptUntil: replaced.keepUntil }
}
