import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify'
import { randomUUID } from 'node:crypto'
import { ConfigError, readString, type Env } from './env-parsing.js'

/** Header carrying the request id between the load balancer, the edge and the backends. */
export const REQUEST_ID_HEADER = 'x-request-id'

const DEFAULT_LOG_LEVEL = 'info'
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = typeof LOG_LEVELS[number]

/** LOG_LEVEL, read the same way by the edge and the reference services. */
export function readLogLevel (env: Env): LogLevel {
  const value = readString(env, 'LOG_LEVEL') ?? DEFAULT_LOG_LEVEL
  const level = LOG_LEVELS.find((candidate) => candidate === value)
  if (level === undefined) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`, value)
  return level
}

const SAFE_REQUEST_ID = /^[\w.:-]{1,64}$/

/**
 * The request's path without its query string. Query strings can carry
 * tokens (the reset link, SSO ids, emails), so they never reach the log.
 */
function pathOnly (url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/** Keeps a sane incoming request id (from the load balancer), else makes one. */
export function requestIdFor (incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

/** pino options for JSON logs with a request id and no secrets. */
export function loggerOptions (level: LogLevel): NonNullable<FastifyServerOptions['loggerInstance']> | Record<string, unknown> {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        'headers.authorization',
        'headers.cookie'
      ],
      censor: '[redacted]'
    },
    serializers: {
      req (request: FastifyRequest) {
        return {
          method: request.method,
          url: pathOnly(request.url),
          remoteAddress: request.ip
        }
      }
    }
  }
}

/**
 * One log line per request, when it is answered, instead of Fastify's two
 * (received, then completed): the same facts, half the logging cost on every
 * proxied call. Use with `disableRequestLogging: true`.
 */
export function logCompletedRequests (app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed')
  })
}

/** Longest wait for the log to drain before exiting anyway. */
const LOG_FLUSH_LIMIT_MS = 1_000

/**
 * Exits once the lines logged so far have been written. pino writes to
 * standard output asynchronously; its exit hook writes out what is still
 * queued, but a write already handed to the thread pool when `process.exit`
 * runs can be lost, and with it the last line before a stop.
 */
export function exitAfterLogging (log: FastifyBaseLogger, code: number): void {
  const exit = (): never => process.exit(code)
  setTimeout(exit, LOG_FLUSH_LIMIT_MS)
  const flush = (log as { flush?: (done: () => void) => void }).flush
  if (typeof flush === 'function') flush.call(log, exit)
  else exit()
}
