// The summary after a tier, read from a tier's TAP output: brand-config's part
// is from CI's log (a subtest skipped as root), the rest from tap runs of small
// files (a file skipped whole, one that failed, two ended by --timeout=3 on a
// loaded machine, with tap's `timeout!` results after them).
import { readFileSync } from 'node:fs'
import t from 'tap'
import { summarizeTap, summaryLines } from '../../../build/test-runner/tap-summary.mjs'

const SAMPLE = readFileSync(new URL('../../fixtures/tap/tier-with-skips-and-timeouts.txt', import.meta.url), 'latin1')

t.test('the skips are named with their file and reason, the timeouts and failures by file', async (t) => {
  t.same(summarizeTap(SAMPLE), {
    files: 5,
    skipped: [
      { file: 'test/server/edge/brand/brand-config.test.ts', test: 'a logo that cannot be read stops the start', reason: 'root reads any file' },
      { file: 'test/skipfile.test.mjs', test: null, reason: 'no chromium: install the Debian package chromium' }
    ],
    timedOut: ['test/fails.test.mjs', 'test/hang.test.mjs'],
    failed: ['test/wrong.test.mjs']
  })
})

t.test('a file tap ended before it printed a result is named from tap\'s own timeout! result', async (t) => {
  // From a tap run of a file that never ends, beside one that passes.
  const output = 'ok 1 - test/build/test-runner/tier-plan.test.ts # time=24.51ms\n\nnot ok 2 - timeout!\n  ---\n  expired: test/zz-hang.test.ts\n  ...\n\n# { total: 12, pass: 11, fail: 1 }\n'
  t.same(summarizeTap(output), { files: 2, skipped: [], timedOut: ['test/zz-hang.test.ts'], failed: [] })
})

t.test('a passing tier has nothing to name', async (t) => {
  t.same(summarizeTap('TAP version 14\n1..1\n# Subtest: test/a.test.ts\n    ok 1 - fine # time=1ms\n    1..1\nok 1 - test/a.test.ts # time=2ms\n# { total: 1, pass: 1 }\n'),
    { files: 1, skipped: [], timedOut: [], failed: [] })
})

t.test('a subtest skipped without a reason is still named', async (t) => {
  t.same(summarizeTap('# Subtest: test/a.test.ts\n    ok 1 - later # SKIP\nok 1 - test/a.test.ts # time=2ms\n').skipped,
    [{ file: 'test/a.test.ts', test: 'later', reason: '' }])
})

t.test('the lines after the tier say a timeout under load is likely the load', async (t) => {
  const summary = summarizeTap(SAMPLE)
  t.same(summaryLines(summary, { tier: 'unit', timeout: 240, cores: 2, load: { mean: 14, peak: 16.5 } }), [
    'unit tier: 5 files, 2 skipped, 2 timed out, 1 failed otherwise; the load average was 14.0 (at most 16.5) on 2 cores during this tier',
    'unit tier skipped: test/server/edge/brand/brand-config.test.ts: "a logo that cannot be read stops the start" (root reads any file)',
    'unit tier skipped: test/skipfile.test.mjs (no chromium: install the Debian package chromium)',
    'unit tier timed out after 240 s: test/fails.test.mjs',
    'unit tier timed out after 240 s: test/hang.test.mjs',
    'unit tier failed: test/wrong.test.mjs',
    'unit tier: a timeout under load is likely the load: files wait for a core when the load average is over 2; `npx tap FILE` runs one alone'
  ])
  t.match(summaryLines(summary, { tier: 'unit', timeout: 120, cores: 2, load: { mean: 1.5, peak: 2.5 } }).at(-1),
    /not loaded .*likely the test's own/, 'on an idle machine, the test\'s')
  t.same(summaryLines(summarizeTap(''), { tier: 'integration', timeout: 120, cores: 2, load: { mean: 1, peak: 1 } }).length, 1, 'nothing to name: one line')
})
