/**
 * An error with the HTTP status to answer. Hooks and parsers throw these, and
 * each route group's error handler decides the form of the answer (JSON for
 * the accounts calls, a gRPC-web status for the domain check).
 */
export class HttpError extends Error {
  constructor (readonly statusCode: number, message: string) {
    super(message)
    this.name = 'HttpError'
  }
}
