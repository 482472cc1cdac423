import type { FastifyBaseLogger } from 'fastify'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { ConfigError, readHttpUrl, type Env } from '../../shared/env-parsing.js'
import { REFERENCE_HEALTH_PATH } from '../../shared/reference-health.js'
import type { ServerConfig } from '../config.js'
import { failureKindOf, isTlsFailure } from './upstream-failures.js'

/** How long a probe may take: a health check that needs longer is not a healthy answer. */
export const PROBE_TIMEOUT_MS = 1000
/** How long a probe's result is reused, so that /readyz cannot be used to flood the backends. */
const PROBE_CACHE_MS = 2000

/**
 * Why an upstream is down, short and bounded (it is shown in /readyz's body
 * and logged): never an address, a URL or an error's text. `starting`: the
 * embedded service has not answered yet since the start.
 */
type ProbeReason = 'refused' | 'reset' | 'timeout' | 'tls' | 'unreadable' | `status ${number}` | 'starting'

export interface ProbeResult {
  readonly up: boolean
  /** Why it is down; null when up. */
  readonly reason: ProbeReason | null
  readonly durationMs: number
}

/** The names of the upstreams, as the failure log lines name them. */
export type UpstreamName = 'accounts' | 'edge-auth'

export interface ProbedUpstream {
  readonly name: UpstreamName
  /** What the probe requests. */
  readonly url: string
  /**
   * The embedded reference service: this instance's own, not shared with
   * the other instances, so that it counts for readiness whatever
   * READINESS_INCLUDES_UPSTREAMS says (docs/operations.md, "Readiness").
   */
  readonly embedded: boolean
  /** Headers the probe sends: the embedded service's secret (server/shared/embedded-secret.ts), none to an own backend. */
  readonly headers?: Readonly<Record<string, string>>
}

/** Called after every probe of every upstream: for the metrics (threshold_upstream_up, …_probe_duration_seconds). */
export type ProbeListener = (upstream: UpstreamName, result: ProbeResult) => void

/**
 * The upstreams readiness probes: each own backend at its health URL
 * (ACCOUNTS_HEALTH_URL and EDGE_AUTH_HEALTH_URL, by default its base URL),
 * the embedded reference service at its health route on loopback.
 */
export function probedUpstreams (
  config: ServerConfig,
  upstreams: { readonly accounts: string, readonly edgeAuth: string },
  embeddedHeaders: Readonly<Record<string, string>> = {}
): readonly ProbedUpstream[] {
  const probed = (name: UpstreamName, healthUrl: string | null, base: string): ProbedUpstream =>
    healthUrl === null
      ? { name, url: `${base}${REFERENCE_HEALTH_PATH}`, embedded: true, headers: embeddedHeaders }
      : { name, url: healthUrl, embedded: false }
  return [
    probed('accounts', config.accountsHealthUrl, upstreams.accounts),
    probed('edge-auth', config.edgeAuthHealthUrl, upstreams.edgeAuth)
  ]
}

function reasonOf (error: unknown): ProbeReason {
  if (isTlsFailure(error)) return 'tls'
  const kind = failureKindOf(error)
  return kind === 'server_error' ? 'unreadable' : kind
}

/**
 * One GET of `url`: up when an HTTP answer below 500 arrives within
 * `timeoutMs`. TLS is verified; a redirect is an answer (below 500) and is
 * not followed, so a backend cannot send the probe elsewhere. A fresh
 * connection each time (no keep-alive), so that connecting is checked too;
 * the answer's body is not read.
 */
function probeOnce (url: string, timeoutMs: number = PROBE_TIMEOUT_MS, headers: Readonly<Record<string, string>> = {}): Promise<ProbeResult> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const started = performance.now()
  return new Promise((resolve) => {
    let settled = false
    const settle = (reason: ProbeReason | null): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.destroy()
      resolve({ up: reason === null, reason, durationMs: performance.now() - started })
    }
    const request = send(target, {
      method: 'GET',
      agent: false,
      rejectUnauthorized: true,
      headers: { ...headers, accept: '*/*', 'accept-encoding': 'identity', 'user-agent': 'threshold-readiness-probe' }
    }, (response) => {
      // HTTP's statuses end at 599; a parser takes any three digits, which would not be a bounded reason.
      const status = response.statusCode ?? 0
      settle(status < 100 || status > 599 ? 'unreadable' : status >= 500 ? `status ${status}` : null)
    })
    const timer = setTimeout(() => settle('timeout'), timeoutMs)
    request.on('error', (error) => settle(reasonOf(error)))
    request.end()
  })
}

export interface UpstreamState {
  readonly upstream: ProbedUpstream
  readonly result: ProbeResult
}

export interface UpstreamProbes {
  readonly upstreams: readonly ProbedUpstream[]
  /**
   * Every upstream's state: the last probes' results while they are fresh
   * (younger than the cache time), else new probes. Callers at the same time
   * share one round, and a URL named twice (the embedded service answering
   * both) is asked once a round.
   */
  check (): Promise<readonly UpstreamState[]>
}

/**
 * The probes, with their cache and their log: an upstream going down (warn;
 * error when TLS does not verify) or coming back up (info) is logged once
 * per change, not per probe. Before the embedded service has answered
 * once, it is `starting`, and not logged as down: the edge listens before
 * it is up.
 */
export function createUpstreamProbes (options: {
  readonly upstreams: readonly ProbedUpstream[]
  readonly log: FastifyBaseLogger
  readonly onProbe?: ProbeListener
  readonly timeoutMs?: number
  readonly cacheMs?: number
}): UpstreamProbes {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS
  const cacheMs = options.cacheMs ?? PROBE_CACHE_MS
  const last = new Map<UpstreamName, { readonly up: boolean, readonly since: number }>()
  const everUp = new Set<UpstreamName>()
  let fresh: { readonly at: number, readonly states: readonly UpstreamState[] } | null = null
  let round: Promise<readonly UpstreamState[]> | null = null

  function note (upstream: ProbedUpstream, probed: ProbeResult): ProbeResult {
    const { name } = upstream
    const starting = upstream.embedded && !probed.up && !everUp.has(name)
    const result: ProbeResult = starting ? { ...probed, reason: 'starting' } : probed
    options.onProbe?.(name, result)
    const previous = last.get(name)
    if (previous?.up === result.up || starting) return result
    const now = Date.now()
    last.set(name, { up: result.up, since: now })
    const probeMs = Math.round(result.durationMs)
    if (result.up) {
      everUp.add(name)
      options.log.info({ upstream: name, probeMs, ...(previous === undefined ? {} : { downForMs: now - previous.since }) }, 'upstream up')
    } else {
      options.log[result.reason === 'tls' ? 'error' : 'warn']({ upstream: name, reason: result.reason, probeMs }, 'upstream down')
    }
    return result
  }

  async function probeAll (): Promise<readonly UpstreamState[]> {
    const byUrl = new Map<string, Promise<ProbeResult>>()
    for (const { url, headers } of options.upstreams) if (!byUrl.has(url)) byUrl.set(url, probeOnce(url, timeoutMs, headers))
    return Promise.all(options.upstreams.map(async (upstream) => ({ upstream, result: note(upstream, await byUrl.get(upstream.url)!) })))
  }

  return {
    upstreams: options.upstreams,
    check () {
      if (round !== null) return round
      if (fresh !== null && performance.now() - fresh.at < cacheMs) return Promise.resolve(fresh.states)
      round = probeAll().then((states) => {
        fresh = { at: performance.now(), states }
        return states
      }).finally(() => { round = null })
      return round
    }
  }
}

/**
 * A health URL (ACCOUNTS_HEALTH_URL, EDGE_AUTH_HEALTH_URL): http(s), as the
 * base URLs are read; the service's base URL when unset. Set without its
 * service's URL it is refused: the embedded reference service would then be
 * running, most likely because the service's own variable is misspelt or
 * missing, and it is asked on its own route, never on this URL.
 */
export function readHealthUrl (env: Env, name: string, serviceVariable: string, serviceUrl: string | null): string | null {
  const url = readHttpUrl(env, name)
  if (url !== undefined && serviceUrl === null) {
    throw new ConfigError(name, `is set but ${serviceVariable} is not: the embedded reference service would be probed on its own route instead; set ${serviceVariable} too, or unset ${name}`)
  }
  return url?.href ?? serviceUrl
}
