import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ConfigError, readInteger, readString, type Env } from '../../shared/env-parsing.js'
import type { EdgeMetrics } from './metrics.js'

/** The one path the metrics listener answers. */
const METRICS_PATH = '/metrics'

/** Prometheus's text exposition format, as prom-client writes it. */
const TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8'

export interface MetricsListenerOptions {
  readonly metrics: EdgeMetrics
  /** METRICS_PORT; 0 takes any free port (tests). */
  readonly port: number
  /** HOST: the scraper reaches it where the page is served; operators keep it from the public (docs/operations.md). */
  readonly host: string
  /**
   * More Prometheus text appended to each scrape (the embedded reference
   * service's figures); a failure leaves it out and is reported to `onExtraFailure`.
   */
  readonly extraMetrics?: () => Promise<string>
  readonly onExtraFailure?: (error: unknown) => void
}

export interface MetricsListener {
  /** The port it listens on (METRICS_PORT, or the one taken for 0). */
  readonly port: number
  close (): Promise<void>
}

/**
 * The scraper's own listener: plain node:http, so that it shares nothing
 * with the public one (no Host check, no routes, no hooks, no rate limit)
 * and costs the page nothing. GET or HEAD /metrics answers the registry's
 * text; anything else 404 (405 for another method on /metrics).
 * A taken port rejects with a {@link ConfigError} naming METRICS_PORT.
 */
export async function startMetricsListener (options: MetricsListenerOptions): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    if (path !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.\n')
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed.\n')
      return
    }
    void scrape(options).then((text) => {
      response.writeHead(200, { 'content-type': TEXT_FORMAT, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) })
      response.end(request.method === 'HEAD' ? undefined : text)
    }, () => {
      response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected.\n')
    })
  })
  // A scraper keeps its connection open between scrapes; nothing else should linger.
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 10_000
  server.requestTimeout = 10_000

  server.listen(options.port, options.host)
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => { throw error })])
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'EADDRINUSE') throw new ConfigError('METRICS_PORT', `is taken on ${options.host}: another process listens on port ${options.port}`)
    if (code === 'EACCES') throw new ConfigError('METRICS_PORT', `may not be used by this process on ${options.host} (port ${options.port})`)
    throw error
  }
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}

async function scrape (options: MetricsListenerOptions): Promise<string> {
  const own = await options.metrics.text()
  if (options.extraMetrics === undefined) return own
  try {
    const extra = await options.extraMetrics()
    return extra === '' ? own : `${own}${own.endsWith('\n') ? '' : '\n'}${extra}`
  } catch (error) {
    options.onExtraFailure?.(error)
    return own
  }
}

/**
 * METRICS_PORT: a port other than PORT (the public listener must never
 * answer /metrics, and the two cannot share a port). 0 takes any free port,
 * as PORT=0 does (tests); unset: off.
 */
export function readMetricsPort (env: Env, port: number): number | null {
  if (readString(env, 'METRICS_PORT') === undefined) return null
  const metricsPort = readInteger(env, 'METRICS_PORT', { min: 0, max: 65535, fallback: 0 })
  if (metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', 'must differ from PORT: the metrics are never served on the public port', String(metricsPort))
  }
  return metricsPort
}
