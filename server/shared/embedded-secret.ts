import { randomBytes } from 'node:crypto'

/**
 * The secret the edge shares with the embedded reference services at their
 * start: made afresh by the edge (server/edge/upstream/embedded-services.ts), handed
 * to the child process in its environment, and sent on every call the edge
 * makes to them. The services' loopback port refuses any request without it
 * (server/reference/http/edge-only.ts): loopback is open to every process of the
 * host, and only the edge may state a client's address there.
 */

/** The header that carries it on each call of the edge. */
export const EMBEDDED_SECRET_HEADER = 'x-threshold-embedded-secret'

/** The variable that hands it to the child process. */
export const EMBEDDED_SECRET_VARIABLE = 'THRESHOLD_EMBEDDED_SECRET'

/** A new secret: 256 random bits. */
export function newEmbeddedSecret (): string {
  return randomBytes(32).toString('base64url')
}

/** The headers of a call to the embedded services; none without a secret (an own backend never sees it). */
export function embeddedSecretHeaders (secret: string | null): Readonly<Record<string, string>> {
  return secret === null ? {} : { [EMBEDDED_SECRET_HEADER]: secret }
}
