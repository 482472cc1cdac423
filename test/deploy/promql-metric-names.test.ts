import t from 'tap'
import { grafanaQueryAsPromql, metricNamesIn, selectorsIn } from '../fixtures/metrics/promql-metric-names.js'

/**
 * The fixture that finds the metrics a PromQL expression reads, which the
 * rules' and the dashboard's tests (and a check against a live scrape) rely
 * on: a metric it missed would go unchecked, a word it took for a metric
 * would fail them for nothing.
 */

t.test('a bare name, a selector and a range are metrics', async (t) => {
  t.same(metricNamesIn('up'), ['up'])
  t.same(metricNamesIn('up{job="threshold"} == 0'), ['up'])
  t.same(metricNamesIn('rate(threshold_http_requests_total{route=~"accounts/.+"}[5m])'), ['threshold_http_requests_total'])
  t.same(metricNamesIn('job:threshold_accounts_calls:rate5m * 300 >= 20'), ['job:threshold_accounts_calls:rate5m'], 'recorded names have colons')
})

t.test('functions, aggregations, keywords, label lists, numbers and durations are not', async (t) => {
  t.same(metricNamesIn(
    'histogram_quantile(0.95, sum by (job, route, le) (rate(a_bucket{job="x"}[5m]))) > 2.5 ' +
    'and on (job, route) sum without (instance) (b) * 1e3 unless ignoring (kind) group_left (upstream) c offset 5m ' +
    'or absent(d) or clamp_max(e, 1) or vector(0) or count by (version) (f) > bool Inf'
  ), ['a_bucket', 'b', 'c', 'd', 'e', 'f'])
  t.same(metricNamesIn('topk(5, g) or quantile without (le) (0.5, h) or g[30m:1m]'), ['g', 'h'], 'each once, subqueries read their metric')
  t.same(metricNamesIn('sum(i) by (route)'), ['i'], 'the grouping after the argument')
  t.same(metricNamesIn('0x1F + 1.5e-3 + .5 + 1h30m'), [], 'numbers and durations alone')
})

t.test('words inside strings and label matchers are not metrics', async (t) => {
  t.same(metricNamesIn('label_replace(j, "upstream", "accounts", "", "")'), ['j'])
  t.same(metricNamesIn('k{route="page", status=~"5..|other_metric", a=\'q"uote\', b=`raw`}'), ['k'])
  t.same(metricNamesIn('l # m is in a comment\n+ n'), ['l', 'n'])
})

t.test('a metric named by __name__ counts; one chosen by a pattern throws', async (t) => {
  t.same(metricNamesIn('{__name__="o", job="x"} + p'), ['o', 'p'])
  t.throws(() => metricNamesIn('{__name__=~"threshold_.+"}'), /cannot be named/)
  t.throws(() => metricNamesIn('q{job="unclosed}'), /unterminated string|unclosed/)
})

t.test('selectors keep their matchers as written', async (t) => {
  t.same(selectorsIn('sum(rate(r{job="threshold", limit="accounts"}[5m])) / s'), [
    { metric: 'r', matchers: 'job="threshold", limit="accounts"' },
    { metric: 's', matchers: '' }
  ])
})

t.test('Grafana\'s variables become plain PromQL', async (t) => {
  t.equal(
    grafanaQueryAsPromql('sum(rate(t{job="$job", instance=~"${instance}"}[$__rate_interval])) / increase(t[$__range])'),
    'sum(rate(t{job="all", instance=~"all"}[1m])) / increase(t[1h])'
  )
  t.equal(grafanaQueryAsPromql('u{a="[[job]]", b="${instance:regex}"}[$__interval]'), 'u{a="all", b="all"}[30s]')
})
