import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const LOAD = fileURLToPath(new URL('../../bench/load.mjs', import.meta.url))

interface TargetFigures {
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  requests: number
  errors: number
  timeouts: number
  non2xx: number
}
interface MemoryFigures { first: number, middle: number, last: number, growth: number, limit: number, pass: boolean }
interface Summary {
  durationSeconds: number
  targets: { page: TargetFigures, login: TargetFigures }
  memory: { rss: MemoryFigures, heap: MemoryFigures }
  edgeSurvived: boolean
  errorsPass: boolean
  memoryPass: boolean
  samples: number
}

/**
 * npm run load, shortened to 3 s: the figures are printed in their table, the
 * judgement follows its rules, and the exit code follows the judgement. (The
 * 60 s soak itself is not part of npm test.)
 */
t.test('npm run load --duration 3 prints its figures and judges errors and memory by its rules', async (t) => {
  const { code, stdout } = await new Promise<{ code: number, stdout: string }>((resolve) => {
    execFile(process.execPath, [LOAD, '--duration', '3', '--connections', '4', '--json'], { timeout: 60_000, maxBuffer: 1 << 20 }, (error, stdout) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout })
    })
  })
  t.match(stdout, /RATE_LIMIT_PER_MINUTE=1000000 for the run: all the load comes from one address/, 'says why the rate limit is raised')
  t.match(stdout, /^target\s+req\/s\s+p50 ms\s+p99 ms\s+requests\s+errors\s+timeouts\s+non-2xx$/m, 'the table header')
  t.match(stdout, /^GET \/\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+$/m, 'a row for the page')
  t.match(stdout, /^POST \/accounts\/v2\/login\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+$/m, 'a row for the proxied login')
  t.match(stdout, /^\s+\d+ s\s+rss\s+[\d.]+ MiB\s+heap\s+[\d.]+ MiB$/m, 'memory sampled during the run')
  t.match(stdout, /^ {2}rss .+ MiB\s+last vs middle -?[\d.]+ %/m, 'the RSS by thirds')
  t.match(stdout, /^ {2}heap .+ MiB\s+last vs middle -?[\d.]+ %/m, 'the heap by thirds')

  const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as Summary
  for (const [name, figures] of Object.entries(summary.targets)) {
    t.ok(figures.requests > 0, `${name}: requests were made (${figures.requests}, ${figures.requestsPerSecond}/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms)`)
    t.equal(figures.errors + figures.timeouts + figures.non2xx, 0, `${name}: no error, timeout or non-2xx answer`)
  }
  t.equal(summary.edgeSurvived, true, 'the edge was still running at the end')
  t.match(stdout, /the edge logged [\d.]+ MiB \(LOG_LEVEL=info\) and was still running at the end/)
  t.equal(summary.errorsPass, true)
  t.match(stdout, /^judgement: errors PASS/m)
  t.ok(summary.samples >= 6, `memory samples: ${summary.samples}`)
  for (const [name, figures] of Object.entries(summary.memory)) {
    t.equal(figures.pass, figures.last <= figures.middle * 1.1 + 4 * 1024 * 1024, `${name}: PASS exactly when the last third is within 10 % + 4 MiB of the middle one`)
  }
  t.equal(summary.memoryPass, summary.memory.rss.pass && summary.memory.heap.pass)
  t.match(stdout, new RegExp(`^judgement: memory ${summary.memoryPass ? 'PASS' : 'FAIL'}`, 'm'))
  // A 3 s run is too short to say much about memory; its verdict is printed, not required.
  t.equal(code, summary.errorsPass && summary.memoryPass ? 0 : 1, 'the exit code follows the judgement')
})
