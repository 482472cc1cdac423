import type { FastifyBaseLogger } from 'fastify'

/**
 * A client that resets or closes its connection mid-request takes the answer
 * with it, and what fails after that (a backend's body stream destroyed, a
 * backend call cancelled, a reply written to a closed socket) is the abort's
 * echo, not a fault of the edge or of the backend. Logged as such it would be
 * an error line with a stack per aborted request: a way to flood the log.
 */

/** A request as far as these functions read it (the edge's and the proxies' request types alike). */
interface RequestOnConnection {
  readonly raw: { readonly destroyed?: boolean, readonly complete?: boolean, readonly socket?: { readonly destroyed?: boolean } | null }
  readonly log: FastifyBaseLogger
}

/** Whether the client's connection is gone: nothing the edge sends will reach it. */
export function clientWentAway (request: Pick<RequestOnConnection, 'raw'>): boolean {
  const socket = request.raw.socket
  // A request whose body was read in full is destroyed too (autoDestroy), while its client still waits.
  const abortedMidRequest = request.raw.destroyed === true && request.raw.complete !== true
  return abortedMidRequest || socket == null || socket.destroyed === true
}

/**
 * Logs a failure at `level` with its error (and stack), unless the client's
 * connection is already gone: then one info line, with the error's code and
 * no stack.
 */
export function logFailure (
  request: RequestOnConnection,
  level: 'error' | 'warn',
  error: unknown,
  message: string,
  fields: Readonly<Record<string, unknown>> = {}
): void {
  if (clientWentAway(request)) {
    request.log.info({ ...fields, code: (error as { code?: unknown } | null)?.code }, `${message}: the client went away`)
    return
  }
  request.log[level]({ ...fields, err: error }, message)
}
