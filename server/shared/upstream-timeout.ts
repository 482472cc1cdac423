import { readInteger, type Env } from './env-parsing.js'

/** The edge's wait for a backend's answer unless UPSTREAM_TIMEOUT_MS says otherwise. */
const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000

/**
 * UPSTREAM_TIMEOUT_MS: how long the edge waits for a backend's answer before
 * it answers 504. Read by the edge, and by the embedded reference service
 * (which has the edge's environment), whose hash gate starts no hash whose
 * answer would come after the edge has given up (server/reference/passwords/hash-gate.ts).
 */
export function readUpstreamTimeoutMs (env: Env): number {
  return readInteger(env, 'UPSTREAM_TIMEOUT_MS', { min: 1, max: 600_000, fallback: DEFAULT_UPSTREAM_TIMEOUT_MS })
}
