// The alert rules, the dashboard and the list of named metrics were
// written against names; this reads a real scrape of the built server (the
// edge with its embedded reference service, as the image runs it) and checks
// that every name they read is one it exports, so that no alert or panel
// waits for ever on a series that never comes.
import t from 'tap'
import { freeLoopbackPort } from '../fixtures/servers/local-services.js'
import { startBuiltServer } from '../fixtures/servers/built-server.js'
import { exportedSeriesNames, THRESHOLD_METRICS } from '../fixtures/metrics/metric-names.js'
import { alertRules, dashboardQueries } from '../fixtures/deploy/monitoring-files.js'
import { grafanaQueryAsPromql, metricNamesIn } from '../fixtures/metrics/promql-metric-names.js'

/** Metric name → type, from a scrape's `# TYPE` lines (a metric with no series yet has one too). */
function typesIn (scrape: string): Map<string, string> {
  return new Map([...scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!]))
}

/** The series names a metric of `type` stands for in PromQL: a histogram's buckets, sum and count. */
function seriesNames (types: ReadonlyMap<string, string>): Set<string> {
  const names = new Set<string>(['up'])
  for (const [name, type] of types) {
    names.add(name)
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`)
  }
  return names
}

t.test('every metric the alert rules, the dashboard and the fixed list read is in a real scrape of the built server', async (t) => {
  const metricsPort = await freeLoopbackPort()
  await startBuiltServer(t, { METRICS_PORT: String(metricsPort) })
  const answer = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
  t.equal(answer.status, 200)
  const scrape = await answer.text()
  const types = typesIn(scrape)
  const live = seriesNames(types)

  for (const [name, type] of Object.entries(THRESHOLD_METRICS)) {
    t.equal(types.get(name), type, `${name} is exported as a ${type}`)
  }
  t.ok([...types.keys()].some((name) => name.startsWith('threshold_reference_process_')), 'the reference process\'s own figures come through the edge')

  const recorded = new Set(alertRules().flatMap((rule) => rule.record === undefined ? [] : [rule.record]))
  const read = new Map<string, string>()
  for (const rule of alertRules()) {
    for (const name of metricNamesIn(rule.expr)) read.set(name, rule.alert ?? rule.record ?? 'a rule')
  }
  for (const { panel, expr } of dashboardQueries()) {
    for (const name of metricNamesIn(grafanaQueryAsPromql(expr))) read.set(name, `panel "${panel}"`)
  }
  t.ok(read.size > 15, `the rules and the dashboard read ${read.size} metrics`)
  for (const [name, reader] of read) {
    if (recorded.has(name)) continue
    t.ok(live.has(name), `${name} (read by ${reader}) is in the scrape`)
  }
  // The fixture's list, which the unit-tier checks use without a server, holds nothing the scrape lacks.
  for (const name of exportedSeriesNames()) {
    if (name === 'up' || name.startsWith('nodejs_') || name.startsWith('threshold_reference_nodejs_')) continue
    if (name.startsWith('process_') || name.startsWith('threshold_reference_process_')) continue
    t.ok(live.has(name), `${name}, in the fixture's list, is in the scrape`)
  }
})
