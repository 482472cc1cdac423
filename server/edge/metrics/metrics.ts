import { readFileSync } from 'node:fs'
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client'
import { ACCOUNTS_API_VERSION } from '../../../common/http/accounts-paths.js'
import type { ChallengedPath } from '../../../common/challenge/challenge.js'

/*
 * The edge's Prometheus metrics (docs/operations.md#metrics), in one
 * registry of their own, served only on METRICS_PORT (metrics-listener.ts).
 * Every label value comes from a fixed, short list: never an email, a token,
 * an id, a raw path or a query string, so a hostile client cannot grow the
 * number of series by sending new ones.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** The edge's metrics while METRICS_PORT is set; null: off, and nothing is recorded. */
    metrics: EdgeMetrics | null
  }
}

/** The version in the package.json at `packageJson`, or 'unknown'. */
export function readPackageVersion (packageJson: URL): string {
  try {
    const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: unknown }
    return typeof version === 'string' ? version : 'unknown'
  } catch {
    return 'unknown'
  }
}

/** A route as the request metrics name it; see {@link routeLabel}. */
export type RouteLabel = string
export type MethodLabel = 'GET' | 'HEAD' | 'POST' | 'OTHER'
type UpstreamLabel = 'accounts' | 'edge_auth'
type UpstreamFailureKind = 'refused' | 'reset' | 'timeout' | 'unreadable' | 'server_error'
type RateLimitLabel = 'accounts' | 'domain_check'
export type SignInMethod = 'password' | 'google' | 'sso' | 'passkey_autofill' | 'passkey_button' | 'second_factor' | 'recovery_code' | 'email_code' | 'social'
export type SignInOutcome = 'success' | 'second_factor_required' | 'refused' | 'error'
export type PasskeyRegistrationKind = 'offer' | 'automatic_upgrade'
type PasskeyRegistrationOutcome = 'success' | 'refused' | 'error'
type DomainCheckSource = 'page' | 'enforced'
export type DomainCheckResult = 'authorized' | 'unauthorized' | 'unspecified' | 'failed'
/** A guarded call (common/challenge/challenge.ts CHALLENGED_PATHS). */
type ChallengePathLabel = ChallengedPath
/** issued, passed, or refused_<why> (server/edge/challenge/challenge-gate.ts). */
type ChallengeOutcomeLabel = string

/**
 * The request duration buckets, in seconds. The page and its assets are
 * answered from memory in well under a millisecond, the accounts calls take
 * tens to hundreds (a password hash), and the upstream timeout is 10 s.
 */
const DURATION_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The method label: the three the edge serves, everything else as one. */
export function methodLabel (method: string | undefined): MethodLabel {
  return method === 'GET' || method === 'HEAD' || method === 'POST' ? method : 'OTHER'
}

/** The edge's metrics, and the one way the rest of the edge records into them. */
export interface EdgeMetrics {
  readonly registry: Registry
  /** One answered request: counted by route, method and status, and its time observed by route. */
  request (route: RouteLabel, method: MethodLabel, status: number, seconds: number): void
  upstreamFailure (upstream: UpstreamLabel, kind: UpstreamFailureKind): void
  rateLimited (limit: RateLimitLabel): void
  signIn (method: SignInMethod, outcome: SignInOutcome): void
  passkeyRegistration (kind: PasskeyRegistrationKind, outcome: PasskeyRegistrationOutcome): void
  domainCheck (source: DomainCheckSource, result: DomainCheckResult): void
  /** A challenge issued, passed or refused on a guarded call. */
  challenge (path: ChallengePathLabel, outcome: ChallengeOutcomeLabel): void
  /** The risk level a guarded call was judged at (0: no challenge). */
  challengeLevel (path: ChallengePathLabel, level: number): void
  /** What the last readiness probe of `upstream` found, and how long it took (for /readyz's probes). */
  upstreamProbe (upstream: UpstreamLabel, up: boolean, seconds: number): void
  /**
   * Work to finish before each scrape: the readiness probes, so that the
   * probe gauges are fresh even where nothing asks /readyz (the probes' own
   * cache keeps scrapes from flooding the backends). A hook that fails is
   * left out; the scrape goes on.
   */
  beforeScrape (hook: () => Promise<unknown>): void
  /** The scrape: the registry in Prometheus text format. */
  text (): Promise<string>
}

export interface EdgeMetricsOptions {
  /** The package's version (package.json), for threshold_build_info. */
  readonly version: string
  /** Whether to collect the process's own figures (process_*, nodejs_*); tests building many edges turn it off. */
  readonly processMetrics?: boolean
}

type Child = { inc (): void }

/** A sample as prom-client's registry formats it. */
interface Sample {
  readonly labels: Record<string, string | number>
  readonly value: number
  readonly metricName?: string
}

/** What prom-client's registry reads of a metric: its name, help, type and samples. */
interface CollectedMetric {
  readonly name: string
  readonly help: string
  readonly type: 'counter' | 'histogram'
  readonly aggregator: 'sum'
  get (): Promise<{ readonly name: string, readonly help: string, readonly type: string, readonly aggregator: 'sum', readonly values: Sample[] }>
}

interface RouteTimes {
  /** Observations per bucket (not cumulative), the last for +Inf. */
  readonly buckets: number[]
  sum: number
  count: number
}

/**
 * The request counter and duration histogram, kept in plain numbers and
 * handed to the registry at scrape time in prom-client's own format. They
 * run on every page view: prom-client's label objects cost about as much
 * again as the page's own rendering on this path (hashing and checking
 * the labels on every call), a map lookup and two additions do not.
 */
class RequestTally {
  private readonly counts = new Map<string, { readonly labels: Record<string, string>, value: number }>()
  private readonly times = new Map<string, RouteTimes>()

  record (route: RouteLabel, method: MethodLabel, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`
    const counted = this.counts.get(key)
    if (counted === undefined) this.counts.set(key, { labels: { route, method, status: String(status) }, value: 1 })
    else counted.value++
    let timed = this.times.get(route)
    if (timed === undefined) {
      timed = { buckets: new Array<number>(DURATION_BUCKETS_SECONDS.length + 1).fill(0), sum: 0, count: 0 }
      this.times.set(route, timed)
    }
    let bucket = 0
    while (bucket < DURATION_BUCKETS_SECONDS.length && seconds > DURATION_BUCKETS_SECONDS[bucket]!) bucket++
    timed.buckets[bucket]!++
    timed.sum += seconds
    timed.count++
  }

  readonly counter: CollectedMetric = metricOf('threshold_http_requests_total', 'Requests answered by the edge, by route, method and status.', 'counter',
    () => [...this.counts.values()].map(({ labels, value }) => ({ labels, value })))

  readonly histogram: CollectedMetric = metricOf('threshold_http_request_duration_seconds',
    'Time from a request\'s arrival to its answer, by route (the page, the accounts calls, the domain check…).', 'histogram',
    () => [...this.times].flatMap(([route, { buckets, sum, count }]) => {
      const name = 'threshold_http_request_duration_seconds'
      let cumulative = 0
      const samples: Sample[] = DURATION_BUCKETS_SECONDS.map((bound, index) => {
        cumulative += buckets[index]!
        return { labels: { le: bound, route }, value: cumulative, metricName: `${name}_bucket` }
      })
      samples.push({ labels: { le: '+Inf', route }, value: count, metricName: `${name}_bucket` })
      samples.push({ labels: { route }, value: sum, metricName: `${name}_sum` })
      samples.push({ labels: { route }, value: count, metricName: `${name}_count` })
      return samples
    }))
}

function metricOf (name: string, help: string, type: CollectedMetric['type'], values: () => Sample[]): CollectedMetric {
  return { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) }
}

/** Builds the registry and the metric objects. */
export function createEdgeMetrics (options: EdgeMetricsOptions): EdgeMetrics {
  const registry = new Registry()
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry })

  new Gauge({
    name: 'threshold_build_info',
    help: 'Always 1; the labels say which build runs: its version, Node\'s, and the accounts API version it speaks.',
    labelNames: ['version', 'node', 'accounts_api'] as const,
    registers: [registry]
  }).labels(options.version, process.version, ACCOUNTS_API_VERSION).set(1)

  const requests = new RequestTally()
  registry.registerMetric(requests.counter as unknown as Metric)
  registry.registerMetric(requests.histogram as unknown as Metric)
  const upstreamFailures = new Counter({
    name: 'threshold_upstream_failures_total',
    help: 'Calls to a backend that failed, by backend and kind: refused, reset, timeout, unreadable, server_error (a 5xx answer).',
    labelNames: ['upstream', 'kind'] as const,
    registers: [registry]
  })
  const rateLimited = new Counter({
    name: 'threshold_rate_limited_total',
    help: 'Calls refused by a rate limit (429), by limit.',
    labelNames: ['limit'] as const,
    registers: [registry]
  })
  const signIns = new Counter({
    name: 'threshold_sign_ins_total',
    help: 'Sign-in calls through the edge, by method and outcome, as read from the accounts service\'s answers.',
    labelNames: ['method', 'outcome'] as const,
    registers: [registry]
  })
  const passkeyRegistrations = new Counter({
    name: 'threshold_passkey_registrations_total',
    help: 'Passkeys registered through the edge, by kind (offer, automatic_upgrade) and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry]
  })
  const domainChecks = new Counter({
    name: 'threshold_domain_checks_total',
    help: 'Domain authorization checks, by source (page: the proxied call; enforced: DOMAIN_CHECK_ENFORCED) and result.',
    labelNames: ['source', 'result'] as const,
    registers: [registry]
  })
  const challenges = new Counter({
    name: 'threshold_challenges_total',
    help: 'Challenges on the guarded calls, by path and outcome: issued, passed, refused_<why> (malformed, forged, expired, unsolved, mismatch, outdated, reused, refused, unverified).',
    labelNames: ['path', 'outcome'] as const,
    registers: [registry]
  })
  const challengeLevels = new Counter({
    name: 'threshold_challenge_risk_levels_total',
    help: 'Guarded calls by the risk level they were judged at (0: no challenge asked).',
    labelNames: ['path', 'level'] as const,
    registers: [registry]
  })
  const upstreamUp = new Gauge({
    name: 'threshold_upstream_up',
    help: '1 when the last readiness probe found the backend up, else 0.',
    labelNames: ['upstream'] as const,
    registers: [registry]
  })
  const probeDuration = new Gauge({
    name: 'threshold_upstream_probe_duration_seconds',
    help: 'How long the last readiness probe of the backend took.',
    labelNames: ['upstream'] as const,
    registers: [registry]
  })

  const pairChildren = new Map<string, Child>()

  /** A counter's child for two label values, made once. */
  function pair (name: string, counter: Counter<string>, first: string, second: string): Child {
    const key = `${name} ${first} ${second}`
    let child = pairChildren.get(key)
    if (child === undefined) {
      child = counter.labels(first, second)
      pairChildren.set(key, child)
    }
    return child
  }

  const scrapeHooks: Array<() => Promise<unknown>> = []
  return {
    registry,
    request: (route, method, status, seconds) => requests.record(route, method, status, seconds),
    upstreamFailure: (upstream, kind) => pair('upstream_failures', upstreamFailures, upstream, kind).inc(),
    rateLimited: (limit) => rateLimited.labels(limit).inc(),
    signIn: (method, outcome) => pair('sign_ins', signIns, method, outcome).inc(),
    passkeyRegistration: (kind, outcome) => pair('passkey_registrations', passkeyRegistrations, kind, outcome).inc(),
    domainCheck: (source, result) => pair('domain_checks', domainChecks, source, result).inc(),
    challenge: (path, outcome) => pair('challenges', challenges, path, outcome).inc(),
    challengeLevel: (path, level) => pair('challenge_levels', challengeLevels, path, String(level)).inc(),
    upstreamProbe (upstream, up, seconds) {
      upstreamUp.labels(upstream).set(up ? 1 : 0)
      probeDuration.labels(upstream).set(seconds)
    },
    beforeScrape: (hook) => { scrapeHooks.push(hook) },
    async text () {
      await Promise.all(scrapeHooks.map(async (hook) => await hook().catch(() => undefined)))
      return await registry.metrics()
    }
  }
}
