/**
 * A call the store cannot serve now for want of its database: not a fault of
 * the call, and one that succeeds again once the database is back. The
 * service answers it 503 with Retry-After (server/reference/http/error-answers.ts), as it answers
 * a password check the hash gate sheds.
 */
export class StoreUnavailable extends Error {
  readonly code = 'STORE_UNAVAILABLE'
}

/**
 * What the Node socket layer says when a database's server cannot be reached
 * or its connection breaks.
 */
const SOCKET_FAILURES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'
])

/**
 * PostgreSQL's SQLSTATEs for a server that is going away or not there yet:
 * admin_shutdown (a fast shutdown, pg_terminate_backend), crash_shutdown,
 * cannot_connect_now (starting up, shutting down, in recovery). Class 08,
 * connection exceptions, is matched by its prefix.
 */
const SERVER_GOING_AWAY: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03'])

/**
 * node-postgres raises these as plain Errors without a code: a connection
 * that ended under a query, a pool that could not connect within its
 * connectionTimeoutMillis, a client that broke earlier.
 */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /is not queryable$/
]

/**
 * Whether `error` says that the database could not be reached or its
 * connection broke (as opposed to a statement it refused): a call failing so
 * may succeed on a new connection.
 */
export function isConnectionFailure (error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (SOCKET_FAILURES.has(code) || SERVER_GOING_AWAY.has(code) || code.startsWith('08'))) return true
  return code === undefined && PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message))
}

/** Whether a call failed for want of the store (StoreUnavailable, or a connection failure under it). */
export function isStoreUnavailable (error: unknown): boolean {
  return error instanceof StoreUnavailable || isConnectionFailure(error)
}

/**
 * The fields of a connection failure that are safe to log: its code and
 * message. Never the error itself: pg-pool hangs the client (and so its
 * connection settings) on the errors it emits, and a statement's error may
 * carry the values it was given (`detail`).
 */
export function describeConnectionFailure (error: Error): { readonly code: string | null, readonly message: string } {
  const code = (error as { code?: unknown }).code
  return { code: typeof code === 'string' ? code : null, message: error.message }
}

/** How long a burst of failures lasts past its last one: the next failure after that is news again. */
const FAILURE_BURST_QUIET_MS = 10_000

/**
 * Calls `report` with the first failure of a burst only: a restart breaks
 * every pooled connection at once, and an outage fails every call while it
 * lasts; one line says it. A burst ends FAILURE_BURST_QUIET_MS after its last
 * failure.
 */
export function oncePerBurst<T> (
  report: (failure: T) => void,
  quietMs: number = FAILURE_BURST_QUIET_MS,
  now: () => number = () => performance.now()
): (failure: T) => void {
  let lastAt = -Infinity
  return (failure) => {
    const at = now()
    const news = at - lastAt >= quietMs
    lastAt = at
    if (news) report(failure)
  }
}
