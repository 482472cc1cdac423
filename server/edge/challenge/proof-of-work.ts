import { createChallenge, verifySolution, type Challenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2'
import { randomInt } from 'node:crypto'
import { CHALLENGE_HEADER_MAX_LENGTH } from '../../../common/challenge/challenge.js'
import type { EdgeKeys } from '../keys/edge-secrets.js'

/**
 * ALTCHA v2 proofs of work (altcha-lib), in its deterministic mode: the edge
 * draws the counter the solver must reach and signs the key it leads to, so
 * that the work is known (the solver tries every counter from 0 up) and a
 * solution is checked with one HMAC rather than a key derivation. PBKDF2
 * with SHA-256, which every browser's WebCrypto computes natively
 * (altcha-lib/algorithms/web/pbkdf2 in the page's Worker).
 */

const POW_ALGORITHM = 'PBKDF2/SHA-256'
/**
 * PBKDF2 iterations per attempt. Measured (docs/challenge.md): about 0.6 ms
 * per attempt with WebCrypto, 0.35 ms with Node's own PBKDF2; the edge pays
 * one derivation per challenge it issues.
 */
export const POW_COST = 1_000
/**
 * At level 1 the counter is drawn from [0, 600): 300 key derivations on
 * average (docs/challenge.md has the measured times); each level doubles it.
 * Drawn from 0 up, not from a floor: a solver that knew the floor (the 428
 * names the level) would start there and pay less than the page, which
 * counts from 0. From [0, max) the page and any other solver pay alike.
 */
export const LEVEL_ONE_MAX_COUNTER = 600
/** How long a challenge may be solved and used, in seconds. */
const CHALLENGE_LIFETIME_S = 180

/** What a challenge is bound to: the call, the account it names, the client's range (the last two as keyed hashes). */
export interface ChallengeBinding {
  readonly path: string
  readonly account: string
  readonly range: string
}

/** The highest counter of a level's challenges (excluded): the work doubles per level. */
function maxCounterFor (level: number): number {
  return LEVEL_ONE_MAX_COUNTER * 2 ** (level - 1)
}

/** A new signed challenge of `level` for `binding`, expiring {@link CHALLENGE_LIFETIME_S} after `now` (ms). */
export async function issueProofOfWork (keys: EdgeKeys, level: number, binding: ChallengeBinding, now: number): Promise<Challenge> {
  const max = maxCounterFor(level)
  return await createChallenge({
    algorithm: POW_ALGORITHM,
    cost: POW_COST,
    counter: randomInt(0, max),
    deriveKey,
    // The expiry travels in the signed data rather than as altcha's expiresAt, which altcha-lib compares with
    // this process's own clock: a challenge one instance issues is checked by another, by the clock they share.
    data: { path: binding.path, account: binding.account, range: binding.range, level, expires: Math.floor(now / 1000) + CHALLENGE_LIFETIME_S },
    hmacSignatureSecret: keys.challengeSignature,
    hmacKeySignatureSecret: keys.challengeKeySignature
  })
}

/** Why a solution is refused (`refused`, `unverified`: a provider's token); each is counted (threshold_challenges_total) and answered with a fresh challenge. */
export type Refusal = 'malformed' | 'forged' | 'expired' | 'unsolved' | 'mismatch' | 'outdated' | 'reused' | 'refused' | 'unverified'

export interface SolvedChallenge {
  /** The challenge's identity (its signature), recorded as used until it expires. */
  readonly id: string
  readonly expiresAt: number
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The header's `{ challenge, solution }`, or null when it is not base64url JSON of that shape. */
function readSolutionHeader (header: string): { challenge: Challenge, solution: { counter: number, derivedKey: string } } | null {
  if (header.length > CHALLENGE_HEADER_MAX_LENGTH || !/^[A-Za-z0-9_-]+={0,2}$/.test(header)) return null
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (!isRecord(value) || !isRecord(value.challenge) || !isRecord(value.solution)) return null
  const { challenge, solution } = value
  if (!isRecord(challenge.parameters) || typeof challenge.signature !== 'string') return null
  const parameters = challenge.parameters
  if (typeof parameters.nonce !== 'string' || typeof parameters.salt !== 'string' || typeof parameters.keyPrefix !== 'string' ||
      typeof parameters.algorithm !== 'string' || typeof parameters.cost !== 'number' || !isRecord(parameters.data)) return null
  if (typeof solution.counter !== 'number' || typeof solution.derivedKey !== 'string') return null
  return {
    challenge: challenge as unknown as Challenge,
    solution: { counter: solution.counter, derivedKey: solution.derivedKey }
  }
}

/**
 * Checks a solution header against the call it came with: its shape, the
 * signature, expiry, the work, the binding and a level at least `level`
 * (risk may have risen since it was issued). Single use is the caller's
 * last step, so that a refused solution burns nothing.
 */
export async function checkProofOfWork (keys: EdgeKeys, header: string, binding: ChallengeBinding, level: number, now: number): Promise<SolvedChallenge | { refused: Refusal }> {
  const read = readSolutionHeader(header)
  if (read === null) return { refused: 'malformed' }
  let result
  try {
    result = await verifySolution({
      challenge: read.challenge,
      solution: read.solution,
      deriveKey,
      hmacSignatureSecret: keys.challengeSignature,
      hmacKeySignatureSecret: keys.challengeKeySignature
    })
  } catch {
    // altcha-lib throws on parameters it cannot use (an unknown algorithm, bad hex): not ours.
    return { refused: 'malformed' }
  }
  if (result.expired) return { refused: 'expired' }
  if (result.invalidSignature === true) return { refused: 'forged' }
  if (!result.verified) return { refused: 'unsolved' }
  const parameters = read.challenge.parameters
  const data = parameters.data ?? {}
  if (data.path !== binding.path || data.account !== binding.account || data.range !== binding.range) return { refused: 'mismatch' }
  // The signature checked: every parameter is ours. One issued before the expiry moved into the data has altcha's.
  const expiresAt = (typeof data.expires === 'number' ? data.expires : parameters.expiresAt ?? 0) * 1000
  if (expiresAt <= now) return { refused: 'expired' }
  if (typeof data.level !== 'number' || data.level < level) return { refused: 'outdated' }
  return { id: read.challenge.signature!, expiresAt }
}
