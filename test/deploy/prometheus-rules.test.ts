import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { parse as parseYaml } from 'yaml'
import { exportedSeriesNames } from '../fixtures/metrics/metric-names.js'
import {
  alertRules,
  annotationQueries,
  checkExpressions,
  MONITORING_FILES,
  promtool,
  promtoolAsync,
  promtoolSkip,
  SCRAPE_JOB,
  temporaryFolder
} from '../fixtures/deploy/monitoring-files.js'
import { selectorsIn } from '../fixtures/metrics/promql-metric-names.js'

/**
 * deploy/prometheus/threshold-alerts.yml, as Prometheus reads it: `promtool
 * check rules` accepts it and refuses it broken; its unit tests
 * (threshold-alerts.test.yml: each alert fires when it should, and stays
 * silent under normal traffic and below its least-traffic guard) pass, and
 * fail when a threshold is changed; every alert carries what an operator
 * needs; every metric it reads is one the edge exports.
 */

const skip = promtoolSkip()
const RULES = readFileSync(MONITORING_FILES.alertRules, 'utf8')
const RULES_TESTS = readFileSync(MONITORING_FILES.alertRulesTests, 'utf8')
const OPERATIONS = readFileSync(MONITORING_FILES.operationsDoc, 'utf8')

/** The alerts docs/operations.md names, which docs and dashboards refer to. */
const NAMED_ALERTS = [
  'ThresholdDown', 'ThresholdAccountsUnreachable', 'ThresholdDomainCheckUnreachable', 'ThresholdUpstreamFailing',
  'ThresholdPageSlow', 'ThresholdAccountsSlow', 'ThresholdLockoutStorm', 'ThresholdSignInFailuresHigh',
  'ThresholdRateLimitStorm', 'ThresholdEmailsFailing', 'ThresholdLoadShedding'
]

const alerts = alertRules().filter((rule) => rule.alert !== undefined)
const recorded = new Set(alertRules().flatMap((rule) => rule.record === undefined ? [] : [rule.record]))

/** The rules file and its unit tests side by side in a fresh folder, `change` applied to the rules; returns the tests' path. */
function rulesCopy (t: Test, change: (text: string) => string = (text) => text): { rules: string, tests: string } {
  const dir = temporaryFolder(t)
  const rules = join(dir, 'threshold-alerts.yml')
  writeFileSync(rules, change(RULES))
  copyFileSync(MONITORING_FILES.alertRulesTests, join(dir, 'threshold-alerts.test.yml'))
  return { rules, tests: join(dir, 'threshold-alerts.test.yml') }
}

/** The heading anchors of a Markdown text, as GitHub makes them. */
function anchors (markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
    match[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')))
}

t.test('promtool check rules accepts the file', { skip }, async (t) => {
  const { status, output } = promtool('check', 'rules', MONITORING_FILES.alertRules)
  t.equal(status, 0, output)
  t.match(output, new RegExp(`SUCCESS: ${alertRules().length} rules found`))
})

t.test('promtool check rules refuses a broken copy (the check above can fail)', { skip }, async (t) => {
  const cases: Array<[string, (text: string) => string, RegExp]> = [
    ['an expression that does not parse', (text) => text.replace('up{job="threshold"} == 0 or', 'up{job="threshold"} == == 0 or'), /parse error/],
    ['a template that does not parse', (text) => text.replace('{{ $value | humanizePercentage }} of the calls to', '{{ $value | humanizePercentage } of the calls to'), /template/],
    ['a duration that is not one', (text) => text.replace(/for: 2m/, 'for: two minutes'), /not a valid duration|time: invalid duration|cannot unmarshal/]
  ]
  for (const [what, change, said] of cases) {
    const broken = change(RULES)
    t.not(broken, RULES, `${what}: the copy differs`)
    const { rules } = rulesCopy(t, () => broken)
    const { status, output } = promtool('check', 'rules', rules)
    t.not(status, 0, what)
    t.match(output, said, what)
  }
})

t.test('promtool test rules passes the unit tests: each alert fires when it should and stays silent otherwise', { skip }, async (t) => {
  const { status, output } = promtool('test', 'rules', MONITORING_FILES.alertRulesTests)
  t.equal(status, 0, output)
  t.match(output, /SUCCESS/)
})

t.test('the unit tests fail when a threshold or a guard moves (they can fail)', { skip }, async (t) => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['the upstream failure share raised to 50 %', 'job_upstream:threshold_upstream_failures:ratio_rate5m > 0.05', 'job_upstream:threshold_upstream_failures:ratio_rate5m > 0.5', /alertname: ThresholdUpstreamFailing/],
    ['the page latency guard dropped', 'job_route:threshold_http_requests:rate5m * 300 >= 30', 'job_route:threshold_http_requests:rate5m * 300 >= 0', /alertname: ThresholdPageSlow/],
    ['the calls the rate limit refused counted as forwarded', 'threshold_rate_limited_total{job="threshold", limit="accounts"}', 'threshold_rate_limited_total{job="threshold", limit="none"}', /alertname: ThresholdUpstreamFailing/],
    ['the challenge storm\'s share raised to a half', 'threshold_challenge_risk_levels_total{job="threshold"}[15m])) > 0.1', 'threshold_challenge_risk_levels_total{job="threshold"}[15m])) > 0.5', /alertname: ThresholdChallengeStorm/],
    ['the breach corpus\'s failures guard raised to 100', 'result!="ok"}[15m])) >= 5', 'result!="ok"}[15m])) >= 100', /alertname: ThresholdBreachedPasswordsUnavailable/]
  ]
  const runs = await Promise.all(cases.map(async ([what, from, to]) => {
    t.ok(RULES.includes(from), `${what}: the rules say ${from}`)
    const { tests } = rulesCopy(t, (text) => text.replace(from, to))
    return await promtoolAsync('test', 'rules', tests)
  }))
  cases.forEach(([what, , , said], index) => {
    t.not(runs[index]!.status, 0, what)
    t.match(runs[index]!.output, said, what)
  })
})

t.test('every named alert is there, and no alert is there twice', async (t) => {
  const names = alerts.map((rule) => rule.alert!)
  for (const name of NAMED_ALERTS) t.ok(names.includes(name), name)
  t.equal(new Set(names).size, names.length)
})

t.test('every alert waits (for:), says page or ticket, and has a summary, a description and its runbook', async (t) => {
  for (const rule of alerts) {
    const name = rule.alert!
    t.match(rule.for ?? '', /^\d+[smh]$/, `${name}: for`)
    t.ok(['page', 'ticket'].includes(rule.labels?.severity ?? ''), `${name}: severity ${rule.labels?.severity}`)
    t.ok((rule.annotations?.summary ?? '').length > 0, `${name}: summary`)
    t.ok((rule.annotations?.description ?? '').length > 0, `${name}: description`)
    t.match(`${rule.annotations?.summary} ${rule.annotations?.description}`, /\$value|\$labels|query/, `${name}: the annotations give the figures`)
    t.equal(rule.annotations?.runbook_url, `docs/operations.md#${name.toLowerCase()}`, `${name}: runbook`)
  }
})

t.test('every runbook anchor is a section of docs/operations.md', async (t) => {
  const sections = anchors(OPERATIONS)
  for (const rule of alerts) {
    const anchor = rule.annotations!.runbook_url!.split('#')[1]!
    t.ok(sections.has(anchor), `${rule.alert}: #${anchor}`)
  }
})

t.test('every alert is unit-tested firing, and silent at least once', async (t) => {
  const tests = parseYaml(RULES_TESTS) as { tests: Array<{ alert_rule_test?: Array<{ alertname: string, exp_alerts?: unknown[] }> }> }
  const cases = tests.tests.flatMap((test) => test.alert_rule_test ?? [])
  for (const rule of alerts) {
    const own = cases.filter((test) => test.alertname === rule.alert)
    t.ok(own.some((test) => (test.exp_alerts ?? []).length > 0), `${rule.alert} fires`)
    t.ok(own.some((test) => (test.exp_alerts ?? []).length === 0), `${rule.alert} stays silent`)
  }
})

t.test('every metric the rules read is one the edge exports, or one the file records', async (t) => {
  const exported = exportedSeriesNames()
  for (const rule of alertRules()) {
    const exprs = [rule.expr, ...Object.values(rule.annotations ?? {}).flatMap(annotationQueries)]
    for (const expr of exprs) {
      for (const { metric } of selectorsIn(expr)) {
        t.ok(exported.has(metric) || recorded.has(metric), `${rule.alert ?? rule.record}: ${metric}`)
      }
    }
  }
})

t.test(`every metric the edge exports is read from the scrape job "${SCRAPE_JOB}" alone`, async (t) => {
  const exported = exportedSeriesNames()
  for (const rule of alertRules()) {
    const exprs = [rule.expr, ...Object.values(rule.annotations ?? {}).flatMap(annotationQueries)]
    for (const { metric, matchers } of exprs.flatMap(selectorsIn)) {
      if (!exported.has(metric)) continue
      t.match(matchers, /^job="threshold"(,|$)/, `${rule.alert ?? rule.record}: ${metric}{${matchers}}`)
    }
  }
})

t.test('the annotations\' own queries parse', { skip }, async (t) => {
  const queries = alertRules().flatMap((rule) => Object.values(rule.annotations ?? {}).flatMap(annotationQueries))
  t.ok(queries.length >= 4, `${queries.length} queries`)
  const { status, output } = checkExpressions(t, queries)
  t.equal(status, 0, output)
})

t.test('the challenge\'s and the breached-password corpus\'s alerts are there: a challenge storm, and the corpus failing', async (t) => {
  const names = alerts.map((rule) => rule.alert!)
  t.ok(names.includes('ThresholdChallengeStorm'))
  t.ok(names.includes('ThresholdBreachedPasswordsUnavailable'))
  t.notMatch(RULES, /later issue/, 'the place kept for the challenge storm is filled')
})

t.test('the scrape job and rule_files of docs/operations.md are a configuration Prometheus accepts, with these rules', { skip }, async (t) => {
  const examples = [...OPERATIONS.matchAll(/```yaml\n# prometheus\.yml\n([\s\S]*?)```/g)].map((match) => parseYaml(match[1]!) as Record<string, unknown>)
  t.equal(examples.length, 2, 'the scrape job, then rule_files')
  const config = Object.assign({}, ...examples) as { scrape_configs: Array<{ job_name: string }>, rule_files: string[] }
  t.same(config.scrape_configs.map((job) => job.job_name), [SCRAPE_JOB], 'the job the rules read')
  t.same(config.rule_files, ['/etc/prometheus/rules/threshold-alerts.yml'])
  const file = join(temporaryFolder(t), 'prometheus.yml')
  writeFileSync(file, JSON.stringify({ ...config, rule_files: [MONITORING_FILES.alertRules] }))
  const { status, output } = promtool('check', 'config', file)
  t.equal(status, 0, output)
  t.match(output, new RegExp(`SUCCESS: ${alertRules().length} rules found`))
})
