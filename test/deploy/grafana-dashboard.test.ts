import { readFileSync } from 'node:fs'
import t from 'tap'
import { exportedSeriesNames, THRESHOLD_METRICS } from '../fixtures/metrics/metric-names.js'
import {
  checkExpressions,
  dashboard,
  dashboardPanels,
  dashboardQueries,
  MONITORING_FILES,
  promtoolSkip
} from '../fixtures/deploy/monitoring-files.js'
import { grafanaQueryAsPromql, metricNamesIn, selectorsIn } from '../fixtures/metrics/promql-metric-names.js'

/**
 * deploy/grafana/threshold-dashboard.json, as Grafana imports it: valid JSON
 * of the schema Grafana 10 and 11 write, a Prometheus data source variable
 * and an instance variable that every query obeys, every panel titled with
 * queries that parse (`promtool check rules` on a file holding each as a
 * recording rule) and read only metrics the edge exports, and a panel for
 * each of the figures in THRESHOLD_METRICS (test/fixtures/metrics/metric-names.ts).
 */

const board = dashboard()
const panels = dashboardPanels(board)
const variables = new Map(board.templating.list.map((variable) => [variable.name, variable]))

t.test('the file is JSON of the schema Grafana 10 and 11 write, with a stable uid', async (t) => {
  t.doesNotThrow(() => JSON.parse(readFileSync(MONITORING_FILES.dashboard, 'utf8')))
  t.equal(board.schemaVersion, 39)
  t.equal(board.uid, 'threshold-signin', 'importing it again replaces it (docs/operations.md#the-dashboard)')
  t.equal(board.title, 'Threshold')
})

t.test('a data source variable chooses the Prometheus, and every panel and query uses it', async (t) => {
  const datasource = variables.get('datasource')
  t.equal(datasource?.type, 'datasource')
  t.equal(datasource?.query, 'prometheus')
  for (const panel of panels) {
    t.same(panel.datasource, { type: 'prometheus', uid: '${datasource}' }, `${panel.title}`)
    for (const target of panel.targets ?? []) t.same(target.datasource, { type: 'prometheus', uid: '${datasource}' }, `${panel.title} ${target.refId}`)
  }
})

t.test('job and instance variables list what the scrape holds, all instances by default', async (t) => {
  const job = variables.get('job')
  const instance = variables.get('instance')
  t.equal(job?.type, 'query')
  t.equal(job?.query, 'label_values(threshold_build_info, job)')
  t.same(job?.current, { selected: true, text: 'threshold', value: 'threshold' }, 'the job name docs/operations.md gives')
  t.equal(instance?.type, 'query')
  t.equal(instance?.query, 'label_values(threshold_build_info{job="$job"}, instance)')
  t.equal(instance?.includeAll, true)
  t.equal(instance?.multi, true)
  t.equal(instance?.allValue, '.*')
  const exported = exportedSeriesNames()
  for (const variable of [job, instance]) {
    const query = /^label_values\((.+), (\w+)\)$/.exec(String(variable?.query))
    t.ok(query !== null, `${variable?.name}: label_values(metric, label)`)
    for (const name of metricNamesIn(grafanaQueryAsPromql(query![1]!))) t.ok(exported.has(name), `${variable?.name}: ${name}`)
  }
})

t.test('every panel has a title, a description and queries, each with an expression and its own refId', async (t) => {
  t.ok(panels.length >= 25, `${panels.length} panels`)
  const titles = panels.map((panel) => panel.title ?? '')
  t.equal(new Set(titles).size, titles.length, 'titles are unique')
  for (const panel of panels) {
    t.ok((panel.title ?? '').trim().length > 0, `panel ${panel.id} has a title`)
    t.ok(((panel as { description?: string }).description ?? '').length > 0, `${panel.title}: description`)
    const targets = panel.targets ?? []
    t.ok(targets.length > 0, `${panel.title}: queries`)
    t.ok(targets.every((target) => (target.expr ?? '').trim().length > 0), `${panel.title}: every query has an expression`)
    t.equal(new Set(targets.map((target) => target.refId)).size, targets.length, `${panel.title}: refIds`)
  }
})

t.test('panels fit the 24-column grid without overlapping', async (t) => {
  const cells = new Map<string, string>()
  const overlaps: string[] = []
  for (const panel of board.panels) {
    const { x, y, w, h } = panel.gridPos!
    t.ok(x >= 0 && w > 0 && h > 0 && x + w <= 24, `${panel.title}: x ${x} w ${w}`)
    for (let row = y; row < y + h; row += 1) {
      for (let column = x; column < x + w; column += 1) {
        const key = `${row},${column}`
        if (cells.has(key)) overlaps.push(`${panel.title} overlaps ${cells.get(key)} at ${key}`)
        cells.set(key, panel.title ?? '')
      }
    }
  }
  t.same(overlaps, [])
  t.equal(new Set(board.panels.map((panel) => panel.id)).size, board.panels.length, 'panel ids are unique')
})

t.test('every query parses as PromQL (promtool check rules on a file of them)', { skip: promtoolSkip() }, async (t) => {
  const queries = dashboardQueries(board)
  const { status, output } = checkExpressions(t, queries.map((query) => query.expr))
  t.equal(status, 0, output)
  t.match(output, new RegExp(`SUCCESS: ${queries.length} rules found`))
})

t.test('that check does catch a query that does not parse', { skip: promtoolSkip() }, async (t) => {
  const queries = dashboardQueries(board).map((query) => query.expr)
  const broken = [...queries.slice(0, 3), `${queries[3]})`, ...queries.slice(4)]
  const { status, output } = checkExpressions(t, broken)
  t.not(status, 0)
  t.match(output, /expression_3.*parse error|parse error/)
})

t.test('every metric a query reads is one the edge exports', async (t) => {
  const exported = exportedSeriesNames()
  for (const { panel, expr } of dashboardQueries(board)) {
    for (const name of metricNamesIn(expr)) t.ok(exported.has(name), `${panel}: ${name}`)
  }
})

t.test('every query obeys the job and instance variables', async (t) => {
  for (const panel of panels) {
    for (const target of panel.targets ?? []) {
      for (const { metric, matchers } of selectorsIn(target.expr!.replaceAll(/\$__\w+/g, '1m'))) {
        t.match(matchers, /^job="\$job", instance=~"\$instance"(,|$)/, `${panel.title}: ${metric}`)
      }
    }
  }
})

t.test('a panel for each of the named figures, and for the processes', async (t) => {
  const read = new Set(dashboardQueries(board).flatMap((query) => metricNamesIn(query.expr)))
  const histograms = Object.entries(THRESHOLD_METRICS).filter(([, type]) => type === 'histogram').map(([name]) => name)
  for (const name of Object.keys(THRESHOLD_METRICS)) {
    t.ok(read.has(histograms.includes(name) ? `${name}_bucket` : name), name)
  }
  for (const name of [
    'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds',
    'threshold_reference_process_cpu_seconds_total', 'threshold_reference_process_resident_memory_bytes',
    'threshold_reference_nodejs_eventloop_lag_p99_seconds', 'up'
  ]) t.ok(read.has(name), name)
})

t.test('the figures the brief asked for have their panels', async (t) => {
  const titles = panels.map((panel) => panel.title!.toLowerCase())
  for (const wanted of [
    'requests by route', 'requests by status', 'page latency', 'accounts calls latency', 'domain check latency',
    'upstream failures by kind', 'upstream up', 'rate-limit refusals', 'sign-ins by method and outcome', 'passkey adoption',
    'second factor', 'domain checks', 'password hashing time', 'lockouts', 'emails', 'load shedding', 'cpu', 'memory',
    'event-loop lag'
  ]) t.ok(titles.some((title) => title.includes(wanted)), wanted)
})
