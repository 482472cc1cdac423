import { solveChallenge, solveChallengeWorkers } from 'altcha-lib'
import type { Challenge } from 'altcha-lib/types'
import { deriveKey } from './derive-key.js'
import powWorkerUrl from './pow-worker.js?worker'

/** Longer than this, a challenge counts as one the browser cannot solve: the visitor is told, not kept waiting. */
const POW_TIMEOUT_MS = 30_000

/** At most this many workers count at once (each a share of the counters); a phone has fewer cores. */
const MAX_WORKERS = 4

/**
 * How a proof of work ended: the header's value, `unsupported` (no
 * WebCrypto: an old browser, or a page not served over https, where
 * browsers withhold it), or `failed` (a challenge that is malformed, names an
 * algorithm the page lacks, or was not solved in {@link POW_TIMEOUT_MS}).
 */
export type PowOutcome =
  | { readonly kind: 'solved', readonly header: string }
  | { readonly kind: 'unsupported' | 'failed' }

/**
 * Solves an ALTCHA v2 challenge (common/challenge/challenge.ts, kind `pow`) and
 * encodes the header: base64url of JSON `{ challenge, solution }`.
 *
 * In Web Workers where the browser has them, so the page stays responsive;
 * where it has none, or they do not start (a script blocked or not
 * loading), on the page's own thread: altcha-lib's solver awaits WebCrypto
 * for every key and yields to the page every 200 ms, so the page still
 * paints and the busy button spins. Without WebCrypto there is no fallback:
 * a PBKDF2 in JavaScript would cost the chunk more than it saves the few
 * browsers concerned, and such a browser is refused with a clear text.
 */
export async function solvePow (challenge: unknown): Promise<PowOutcome> {
  if (typeof crypto === 'undefined' || crypto.subtle === undefined) return { kind: 'unsupported' }
  if (!isChallenge(challenge)) return { kind: 'failed' }
  try {
    const solution = await inWorkers(challenge).catch(() => solveChallenge({ challenge, deriveKey, timeout: POW_TIMEOUT_MS }))
    return solution === null ? { kind: 'failed' } : { kind: 'solved', header: base64url(JSON.stringify({ challenge, solution })) }
  } catch {
    return { kind: 'failed' }
  }
}

/** Rejects where workers are missing or fail, so that the page's own thread takes over. */
async function inWorkers (challenge: Challenge): ReturnType<typeof solveChallengeWorkers> {
  if (typeof Worker !== 'function') throw new Error('no Web Workers')
  return solveChallengeWorkers({
    challenge,
    concurrency: Math.min(MAX_WORKERS, navigator.hardwareConcurrency || 1),
    createWorker: () => new Worker(powWorkerUrl),
    timeout: POW_TIMEOUT_MS
  })
}

/** The shape altcha-lib reads; its own checks (hex, prefix, algorithm) throw on the rest. */
function isChallenge (value: unknown): value is Challenge {
  const parameters = (value as { parameters?: unknown } | null)?.parameters as Record<string, unknown> | undefined
  return typeof parameters === 'object' && parameters !== null && typeof parameters.algorithm === 'string' &&
    typeof parameters.nonce === 'string' && typeof parameters.salt === 'string' && typeof parameters.keyPrefix === 'string' &&
    Number.isSafeInteger(parameters.cost) && (parameters.cost as number) > 0
}

function base64url (text: string): string {
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
