// npm run load: the edge under a steady load (a 60 s soak by default), in
// front of a local accounts backend that runs in a process of its own.
//
//   node bench/load.mjs [--duration SECONDS] [--connections N] [--json]
//
// - autocannon drives the page (GET /) and the proxied login
//   (POST /accounts/v2/login) at the same time, N connections each (default
//   10), and reports requests/s, p50 and p99 latency, errors and non-2xx
//   answers for each;
// - the edge's memory (RSS and V8 heap in use) is read inside its process
//   (bench/memory-probe.mjs, preloaded with node --import) and printed every
//   few seconds;
// - the judgement, exit code 1 when either fails:
//   errors: socket errors, timeouts and non-2xx answers must all be 0;
//   memory: must not keep growing. The samples are cut into thirds by time;
//   the first third is warm-up (JIT, connection pools, caches), and the mean
//   of the last third may exceed the mean of the middle third by at most
//   10 % + 4 MiB, for RSS and for the heap alike.
//   the edge must also still be running at the end.
// The edge runs as in production (LOG_LEVEL=info, so every proxied call is
// logged, here to a file: a pipe into this busy process would slow the edge
// down), except RATE_LIMIT_PER_MINUTE: all the load comes from one address,
// which the default limit (30 a minute) would answer with 429.
// `--json` adds the figures as one JSON line at the end.
import autocannon from 'autocannon'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEdge, startHelperServer } from './tools.mjs'

/** @typedef {{ at: number, rss: number, heapUsed: number }} MemorySample what memory-probe.mjs writes, one a line */

const root = fileURLToPath(new URL('../', import.meta.url))
/**
 * @param {string} name
 * @param {number} fallback
 */
const option = (name, fallback) => {
  const index = process.argv.indexOf(name)
  const value = index === -1 ? NaN : Number(process.argv[index + 1])
  return Number.isFinite(value) && value > 0 ? value : fallback
}
const durationSeconds = option('--duration', 60)
const connections = Math.round(option('--connections', 10))
const json = process.argv.includes('--json')

const RATE_LIMIT_PER_MINUTE = 1_000_000
const GROWTH_ALLOWED = 0.10
const GROWTH_SLACK_BYTES = 4 * 1024 * 1024
const sampleEveryMs = Math.round(Math.max(200, Math.min(1000, durationSeconds * 1000 / 15)))
const printEveryMs = Math.max(1000, Math.min(5000, Math.round(durationSeconds * 1000 / 6)))

const mib = (/** @type {number} */ bytes) => (bytes / 1024 / 1024).toFixed(1)
const mean = (/** @type {number[]} */ values) => values.length === 0 ? NaN : values.reduce((sum, value) => sum + value, 0) / values.length

execFileSync(process.execPath, [join(root, 'build.mjs'), '--if-stale'], { stdio: 'inherit' })

/**
 * @param {string} file
 * @returns {MemorySample[]}
 */
function readSamples (file) {
  let text = ''
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return []
  }
  // The last line may be half written.
  return text.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)]
    } catch {
      return []
    }
  })
}

/**
 * The memory rule: samples cut into thirds by time; the last third's mean may
 * exceed the middle third's by at most GROWTH_ALLOWED + GROWTH_SLACK_BYTES.
 * @param {MemorySample[]} samples
 * @param {number} startedAt
 * @param {number} endedAt
 * @param {'rss' | 'heapUsed'} field
 */
function judgeMemory (samples, startedAt, endedAt, field) {
  const third = (endedAt - startedAt) / 3
  const within = (/** @type {number} */ from, /** @type {number} */ to) => samples.filter((sample) => sample.at >= from && sample.at < to).map((sample) => sample[field])
  const first = mean(within(startedAt, startedAt + third))
  const middle = mean(within(startedAt + third, startedAt + 2 * third))
  const last = mean(within(startedAt + 2 * third, endedAt + 1))
  const limit = middle * (1 + GROWTH_ALLOWED) + GROWTH_SLACK_BYTES
  const growth = (last - middle) / middle
  return { first, middle, last, growth, limit, pass: Number.isFinite(last) && Number.isFinite(middle) && last <= limit }
}

/** @param {autocannon.Result} result */
function summarise (result) {
  return {
    requestsPerSecond: Math.round(result.requests.total / (result.duration || durationSeconds)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx
  }
}

const folder = mkdtempSync(join(tmpdir(), 'threshold-load-'))
const probeFile = join(folder, 'memory.jsonl')
const logFile = join(folder, 'edge.log')
const backend = await startHelperServer('servers/load-upstream.mjs')
const edge = await startEdge({
  ACCOUNTS_URL: backend.url,
  EDGE_AUTH_URL: backend.url,
  RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
  LOG_LEVEL: 'info',
  THRESHOLD_MEMORY_PROBE: probeFile,
  THRESHOLD_MEMORY_PROBE_MS: String(sampleEveryMs)
}, { logFile, nodeArgs: [`--import=${join(root, 'bench/memory-probe.mjs')}`] })

console.log(`npm run load: ${durationSeconds} s against the built edge (pid ${edge.pid}), Node ${process.version}, ${cpus().length} CPUs`)
console.log(`  page: GET / and login: POST /accounts/v2/login (proxied to a local backend in another process), ${connections} connections each`)
console.log(`  RATE_LIMIT_PER_MINUTE=${RATE_LIMIT_PER_MINUTE} for the run: all the load comes from one address, which the default limit would answer with 429`)
console.log('  the machine may be shared: figures vary from run to run; the judgement does not depend on speed\n')

/** @type {autocannon.Result[]} */
let results
const startedAt = Date.now()
/** @type {number} */
let endedAt
/** @type {boolean} */
let edgeSurvived
/** @type {number} */
let logBytes
try {
  const common = { connections, duration: durationSeconds, timeout: 10 }
  const progress = setInterval(() => {
    const latest = readSamples(probeFile).at(-1)
    if (latest !== undefined) {
      console.log(`  ${String(Math.round((Date.now() - startedAt) / 1000)).padStart(4)} s   rss ${mib(latest.rss).padStart(6)} MiB   heap ${mib(latest.heapUsed).padStart(6)} MiB`)
    }
  }, printEveryMs)
  results = await Promise.all([
    autocannon({ ...common, title: 'GET /', url: `${edge.base}/` }),
    autocannon({
      ...common,
      title: 'POST /accounts/v2/login',
      url: `${edge.base}/accounts/v2/login`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'load@example.test', password: 'correct horse battery staple' })
    })
  ])
  endedAt = Date.now()
  clearInterval(progress)
  edgeSurvived = edge.running()
  logBytes = statSync(logFile).size
  if (!edgeSurvived) {
    console.log(`\nthe edge stopped during the run (${edge.exit()}); the end of its log:`)
    console.log(readFileSync(logFile, 'utf8').trim().split('\n').slice(-20).join('\n'))
  }
} finally {
  await edge.stop()
  await backend.stop()
}
const samples = readSamples(probeFile)
rmSync(folder, { recursive: true, force: true })

const [pageResult, loginResult] = results
if (pageResult === undefined || loginResult === undefined) throw new Error('load: autocannon gave no result')
const targets = { page: summarise(pageResult), login: summarise(loginResult) }
console.log('\ntarget                      req/s    p50 ms   p99 ms   requests   errors   timeouts   non-2xx')
for (const [label, figures] of /** @type {const} */ ([['GET /', targets.page], ['POST /accounts/v2/login', targets.login]])) {
  console.log(`${label.padEnd(26)}${String(figures.requestsPerSecond).padStart(7)}${String(figures.p50Ms).padStart(10)}${String(figures.p99Ms).padStart(9)}` +
    `${String(figures.requests).padStart(11)}${String(figures.errors).padStart(9)}${String(figures.timeouts).padStart(11)}${String(figures.non2xx).padStart(10)}`)
}

const memory = { rss: judgeMemory(samples, startedAt, endedAt, 'rss'), heap: judgeMemory(samples, startedAt, endedAt, 'heapUsed') }
console.log(`\nthe edge logged ${mib(logBytes)} MiB (LOG_LEVEL=info) and was ${edgeSurvived ? 'still running' : 'NOT running'} at the end`)
console.log(`edge memory, mean of each third of the run (${samples.length} samples, one every ${sampleEveryMs} ms):`)
for (const [label, figures] of /** @type {const} */ ([['rss ', memory.rss], ['heap', memory.heap]])) {
  console.log(`  ${label}  ${mib(figures.first)} → ${mib(figures.middle)} → ${mib(figures.last)} MiB   last vs middle ${(figures.growth * 100).toFixed(1)} %` +
    `   (limit ${mib(figures.limit)} MiB)`)
}

const errorCount = Object.values(targets).reduce((sum, figures) => sum + figures.errors + figures.timeouts + figures.non2xx, 0)
const errorsPass = errorCount === 0 && edgeSurvived
const memoryPass = memory.rss.pass && memory.heap.pass
console.log(`\njudgement: errors ${errorsPass ? 'PASS' : 'FAIL'} (${errorCount} socket errors, timeouts and non-2xx answers; 0 allowed${edgeSurvived ? '' : '; the edge stopped'})`)
console.log(`judgement: memory ${memoryPass ? 'PASS' : 'FAIL'} (last third within 10 % + 4 MiB of the middle third, for RSS and heap)`)
if (json) {
  console.log(JSON.stringify({ durationSeconds, connections, targets, memory, edgeSurvived, errorsPass, memoryPass, samples: samples.length }))
}
process.exitCode = errorsPass && memoryPass ? 0 : 1
