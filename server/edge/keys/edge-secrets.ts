import { hkdfSync, randomBytes } from 'node:crypto'

/** The edge's HMAC keys, one per purpose, derived from EDGE_SECRET (HKDF-SHA-256, as server/reference/keys/derived-secrets.ts derives its own). */
export interface EdgeKeys {
  /** Signs a challenge's parameters (its binding included). */
  readonly challengeSignature: string
  /** Signs the key a proof of work must find, so that checking a solution costs one HMAC. */
  readonly challengeKeySignature: string
  /** Names accounts and address ranges in the counts and in a challenge's binding, never in the clear. */
  readonly pseudonym: Buffer
  /** Names client addresses in the rate limits' counts (server/edge/http/rate-limit.ts), never in the clear. */
  readonly rateLimitPseudonym: Buffer
  /** Signs the edge's note that a browser signed in to an account (server/edge/known-browsers/known-browser.ts). */
  readonly knownBrowserSignature: Buffer
}

/**
 * The keys from EDGE_SECRET; without it, from a secret drawn at start: then
 * only this instance can check its own challenges, read its own account
 * counts and known browsers (docs/challenge.md, "Several instances"). Drawn
 * once per edge (server/edge/app.ts), so that every part of one instance agrees.
 */
export function edgeKeys (edgeSecret: string | null): EdgeKeys {
  const root = edgeSecret === null ? randomBytes(32) : Buffer.from(edgeSecret, 'utf8')
  const derive = (purpose: string): Buffer => Buffer.from(hkdfSync('sha256', root, 'threshold-edge', purpose, 32))
  return {
    challengeSignature: derive('challenge-signature').toString('hex'),
    challengeKeySignature: derive('challenge-key-signature').toString('hex'),
    pseudonym: derive('challenge-pseudonym'),
    rateLimitPseudonym: derive('rate-limit-pseudonym'),
    knownBrowserSignature: derive('known-browser-signature')
  }
}
