import type { FastifyBaseLogger } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { NO_STORE, STATIC_SECURITY_HEADERS } from './security-headers.js'

/**
 * The answers Node's HTTP server gives itself, before Fastify sees a request:
 * a request it cannot parse, headers too large, a request too slow to
 * arrive, an `Expect` it cannot meet. Node's and Fastify's own answers carry
 * none of the security headers; these carry the set every other answer has.
 */

interface NodeAnswer {
  readonly status: number
  readonly reason: string
  readonly message: string
}

const BAD_REQUEST: NodeAnswer = { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP.' }

/** Node's own choice of status for each parser error, with the edge's words (RFC 9110, RFC 6585). */
const ANSWERS_BY_CODE: Readonly<Record<string, NodeAnswer>> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request took too long to arrive.' },
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large.' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'Content Too Large', message: 'The request is too large.' }
}

const EXPECTATION_FAILED: NodeAnswer = { status: 417, reason: 'Expectation Failed', message: 'Only "Expect: 100-continue" is supported.' }

function headersFor (body: string): Record<string, string> {
  return {
    ...STATIC_SECURITY_HEADERS,
    'cache-control': NO_STORE,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close'
  }
}

/** The whole answer as bytes on the wire, built once. */
function rawAnswer (answer: NodeAnswer): string {
  const body = JSON.stringify({ error: answer.message })
  const head = Object.entries(headersFor(body)).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `HTTP/1.1 ${answer.status} ${answer.reason}\r\n${head}\r\n${body}`
}

const RAW_ANSWERS = new Map<NodeAnswer, string>(
  [BAD_REQUEST, ...Object.values(ANSWERS_BY_CODE)].map((answer) => [answer, rawAnswer(answer)])
)

/**
 * Fastify's `clientErrorHandler`: Node found the request unreadable (or the
 * connection failed). A reset connection is gone and gets nothing; otherwise
 * the client gets Node's status with the security headers, unless an answer
 * has already started on that connection, and the connection is closed. One
 * debug line, without a stack: a malformed request is the client's business,
 * and a flood of them must not flood the log.
 */
export function answerClientError (this: { log: FastifyBaseLogger }, error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const answer = ANSWERS_BY_CODE[error.code ?? ''] ?? BAD_REQUEST
  this.log.debug({ code: error.code, statusCode: answer.status }, 'malformed request refused')
  // As Node does: a request that fails while the previous answer on the
  // connection is still being written must not write into that answer.
  const pending = (socket as { _httpMessage?: ServerResponse | null })._httpMessage
  if (socket.writable && (pending == null || !pending.headersSent)) socket.write(RAW_ANSWERS.get(answer)!)
  socket.destroy()
}

/**
 * The server's 'checkExpectation' listener: an `Expect` other than
 * `100-continue` (which Node answers itself) is refused with 417, as RFC 9110
 * ("Expect") allows, and the request is not processed.
 */
export function refuseExpectation (_request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify({ error: EXPECTATION_FAILED.message })
  response.writeHead(EXPECTATION_FAILED.status, headersFor(body))
  response.end(body)
}
