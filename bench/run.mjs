// npm run bench: the edge's speed, measured in one run against nginx serving
// the same files with the same headers, and printed as a report; the figures a
// reader needs are kept by hand in docs/performance.md.
//
//   node bench/run.mjs [--duration SECONDS (4)] [--rounds N (5)] [--logins-only]
//
// - requests/s and p99 latency for GET / (as it is, brotli and gzip) and for the main script (gzip), from
//   our server and from nginx (Debian's, started here on loopback, one worker
//   like our one Node process), with wrk (Debian's) as the load generator;
// - the latency the accounts proxy adds over calling the backend directly;
// - server start time, from process start to listening;
// - the page with and without metrics (METRICS_PORT), in the same rounds, with
//   the metrics edge scraped every second during its load, as a ratio.
// - logins per second of the embedded accounts service against the password
//   hash's floor, last, with nothing else running (bench/logins/login-capacity.mjs);
//   `--logins-only` measures only these.
// Timings on a shared machine are noisy: compare the ratios, which are
// measured minutes apart on the same machine.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loginsReport, measureLogins } from './logins/login-capacity.mjs'
import { startNginx } from './servers/nginx-yardstick.mjs'
import { commandExists, freePort, median, runWrk, startEdge, startHelperServer } from './tools.mjs'

/** @typedef {Awaited<ReturnType<typeof runWrk>>} WrkResult */

const root = fileURLToPath(new URL('../', import.meta.url))
const durationSeconds = Number(process.argv[process.argv.indexOf('--duration') + 1]) || 4
// The host's load changes from minute to minute on a shared machine: each
// measurement is repeated in rounds, the contenders taking turns, and the
// medians (of the figures and of each round's ratio) are reported.
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5
/** Unmeasured load before the rounds, so that no round pays for V8's optimizing compiler warming up. */
const WARM_UP_SECONDS = 2
const ratio = (/** @type {number} */ ours, /** @type {number} */ theirs) => theirs > 0 ? (ours / theirs).toFixed(2) : 'n/a'
/**
 * The median of a list of numbers, without rounding.
 * @param {number[]} values
 */
const middle = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const half = sorted.length >> 1
  const at = (/** @type {number} */ index) => sorted[index] ?? Number.NaN
  return sorted.length % 2 === 1 ? at(half) : (at(half - 1) + at(half)) / 2
}
/**
 * Two contenders' results of the same rounds, paired by round (they took turns in each).
 * @template T
 * @param {T[]} ours
 * @param {T[]} theirs
 * @returns {Array<[T, T]>}
 */
const byRound = (ours, theirs) => ours.flatMap((one, round) => {
  const other = theirs[round]
  return other === undefined ? [] : [[one, other]]
})
/**
 * Several wrk results as one: the median of each figure.
 * @param {WrkResult[]} results
 */
const summarize = (results) => ({
  requestsPerSecond: middle(results.map((one) => one.requestsPerSecond)),
  p50Ms: middle(results.map((one) => one.p50Ms)),
  p99Ms: middle(results.map((one) => one.p99Ms))
})

execFileSync(process.execPath, [join(root, 'build.mjs'), '--if-stale'], { stdio: 'inherit' })

/** From spawn to listening for a Node process that only opens an empty node:http server: the floor for any Node server here. */
async function emptyServerStartMs () {
  const started = Date.now()
  const child = spawn(process.execPath, ['-e', "require('node:http').createServer().listen(0, '127.0.0.1', function () { console.log(Date.now()); this.close() })"], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk) => { output += chunk })
  await once(child, 'close')
  return Number(output.trim()) - started
}

/**
 * node:http answering the page the edge rendered, with its headers, from memory: one Node process's ceiling.
 * @param {string} edgeBase
 */
async function startPlainNode (edgeBase) {
  const page = await fetch(`${edgeBase}/`, { headers: { 'accept-encoding': 'identity' } })
  const headers = [...page.headers].filter(([name]) => !/^(date|connection|keep-alive|transfer-encoding)$/.test(name)).flat()
  return startHelperServer('servers/plain-node-server.mjs', JSON.stringify({ body: await page.text(), headers }))
}

/** The first load's script: its one chunk, which the page preloads (the entry is one line that imports it: build/first-load-chunk.mjs). */
function firstLoadScriptUrl () {
  const indexHtml = readFileSync(join(root, 'dist/public/index.html'), 'utf8')
  const url = (/<link rel="modulepreload" href="(\/assets\/[^"]+\.js)">/.exec(indexHtml) ?? /src="(\/assets\/main-[^"]+\.js)"/.exec(indexHtml))?.[1]
  if (url === undefined) throw new Error('bench: dist/public/index.html names no script')
  return url
}
const mainScriptUrl = firstLoadScriptUrl()

async function main () {
  if (!commandExists('wrk')) {
    console.error('bench: wrk is not installed (Debian package wrk); it is the load generator')
    process.exit(1)
  }
  // The accounts backend, in a process of its own: answers every call at once.
  const backend = await startHelperServer('servers/load-upstream.mjs')
  console.error('bench: server start time')

  // Server start: the median of five starts, with backends configured (as in
  // production) and without; and, taking turns with the first, five starts
  // with Node's compile cache turned off, to show what the cache saves.
  const startTimes = []
  const uncachedStartTimes = []
  const compileCacheStates = new Set()
  for (let run = 0; run < 5; run++) {
    const edge = await startEdge({ ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url })
    startTimes.push(edge.startMs)
    compileCacheStates.add(edge.compileCache)
    await edge.stop()
    const uncached = await startEdge({ ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url, NODE_DISABLE_COMPILE_CACHE: '1' })
    uncachedStartTimes.push(uncached.startMs)
    await uncached.stop()
  }
  if (compileCacheStates.size !== 1 || !compileCacheStates.has('ENABLED')) {
    console.error(`bench: the edge did not start with its compile cache (${[...compileCacheStates].join(', ')}); run npm run build with this Node`)
    process.exit(1)
  }
  const floorStarts = []
  for (let run = 0; run < 5; run++) floorStarts.push(await emptyServerStartMs())
  const embeddedStarts = []
  for (let run = 0; run < 3; run++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'threshold-bench-data-'))
    const edge = await startEdge({ DATA_DIR: dataDir })
    embeddedStarts.push(edge.startMs)
    await edge.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }

  console.error('bench: throughput, edge and nginx')
  const edge = await startEdge({ ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url })
  const nginx = commandExists('nginx') ? await startNginx(edge.base, mainScriptUrl) : null
  const plainNode = await startPlainNode(edge.base)
  const load = (/** @type {string} */ url, /** @type {Record<string, string>} */ headers = {}) => runWrk({ url, headers, durationSeconds, connections: 64 })

  /** @typedef {{ name: string, path: string, headers: Record<string, string>, edge: WrkResult[], nginx: WrkResult[] }} Target */
  /** @type {Target} */
  const page = { name: 'page', path: '/', headers: {}, edge: [], nginx: [] }
  /** @type {Target} */
  const pageBrotli = { name: 'page (br)', path: '/', headers: { 'accept-encoding': 'br' }, edge: [], nginx: [] }
  /** @type {Target} */
  const pageGzip = { name: 'page (gzip)', path: '/', headers: { 'accept-encoding': 'gzip' }, edge: [], nginx: [] }
  /** @type {Target} */
  const mainScript = { name: 'main script (gzip)', path: mainScriptUrl, headers: { 'accept-encoding': 'gzip' }, edge: [], nginx: [] }
  const targets = [page, pageBrotli, pageGzip, mainScript]
  /** @type {WrkResult[]} */
  const plainNodeRounds = []
  for (const { path, headers } of targets) {
    await runWrk({ url: `${edge.base}${path}`, headers, durationSeconds: WARM_UP_SECONDS, connections: 64 })
    if (nginx !== null) await runWrk({ url: `${nginx.base}${path}`, headers, durationSeconds: WARM_UP_SECONDS, connections: 64 })
  }
  await runWrk({ url: `${plainNode.url}/`, durationSeconds: WARM_UP_SECONDS, connections: 64 })
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      target.edge.push(await load(`${edge.base}${target.path}`, target.headers))
      if (nginx !== null) target.nginx.push(await load(`${nginx.base}${target.path}`, target.headers))
    }
    plainNodeRounds.push(await load(`${plainNode.url}/`))
  }
  await plainNode.stop()
  const results = targets.map((target) => ({
    target,
    edge: summarize(target.edge),
    nginx: nginx === null ? null : summarize(target.nginx),
    ratio: nginx === null ? null : middle(byRound(target.edge, target.nginx).map(([ours, theirs]) => ours.requestsPerSecond / theirs.requestsPerSecond))
  }))
  const plainNodePage = summarize(plainNodeRounds)
  const plainVsNginx = nginx === null ? null : middle(byRound(plainNodeRounds, page.nginx).map(([plain, theirs]) => plain.requestsPerSecond / theirs.requestsPerSecond))
  const edgeVsPlain = middle(byRound(page.edge, plainNodeRounds).map(([ours, plain]) => ours.requestsPerSecond / plain.requestsPerSecond))

  console.error('bench: the page with and without metrics')
  // A second edge, the same but for METRICS_PORT, taking turns with the first
  // in each round; a scraper reads /metrics every second while it is loaded.
  const metricsPort = await freePort()
  const metered = await startEdge({ ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url, METRICS_PORT: String(metricsPort) })
  const scrapeUrl = `http://127.0.0.1:${metricsPort}/metrics`
  const seriesIn = (/** @type {string} */ text) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length
  const seriesBefore = seriesIn(await (await fetch(scrapeUrl)).text())
  await runWrk({ url: `${metered.base}/`, durationSeconds: WARM_UP_SECONDS, connections: 64 })
  /** @type {WrkResult[]} */
  const withoutMetrics = []
  /** @type {WrkResult[]} */
  const withMetrics = []
  /** @type {number[]} */
  const scrapeMs = []
  for (let round = 0; round < rounds; round++) {
    withoutMetrics.push(await load(`${edge.base}/`))
    let scraping = true
    const scraper = (async () => {
      while (scraping) {
        const started = performance.now()
        await (await fetch(scrapeUrl)).text()
        scrapeMs.push(performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    })()
    withMetrics.push(await load(`${metered.base}/`))
    scraping = false
    await scraper
  }
  const seriesAfter = seriesIn(await (await fetch(scrapeUrl)).text())
  await metered.stop()
  const metricsRatio = middle(byRound(withMetrics, withoutMetrics).map(([one, other]) => one.requestsPerSecond / other.requestsPerSecond))
  const withoutSummary = summarize(withoutMetrics)
  const withSummary = summarize(withMetrics)

  console.error('bench: proxy overhead')
  // The proxy's cost: one connection, sequential calls, p50 through the edge vs straight to the backend.
  const post = { method: 'POST', body: '{"email":"a@b.test","password":"x"}', headers: { 'content-type': 'application/json' } }
  /** @type {WrkResult[]} */
  const directRounds = []
  /** @type {WrkResult[]} */
  const proxiedRounds = []
  for (let round = 0; round < rounds; round++) {
    directRounds.push(await runWrk({ url: `${backend.url}/v2/login`, durationSeconds: 3, connections: 1, ...post }))
    proxiedRounds.push(await runWrk({ url: `${edge.base}/accounts/v2/login`, durationSeconds: 3, connections: 1, ...post }))
  }
  const direct = summarize(directRounds)
  const proxied = summarize(proxiedRounds)
  const proxyOverheadMs = middle(byRound(proxiedRounds, directRounds).map(([through, straight]) => through.p50Ms - straight.p50Ms))

  await nginx?.stop()
  await edge.stop()
  await backend.stop()

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${nginx?.version ?? 'no nginx'}, wrk ${spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0]?.split(' ')[1] ?? ''}`
  const rows = results.map(({ target, edge: ours, nginx: theirs, ratio: oursToTheirs }) =>
    `| ${target.name} | ${Math.round(ours.requestsPerSecond).toLocaleString('en')} | ${ours.p99Ms.toFixed(2)} ms | ${theirs === null ? 'n/a' : Math.round(theirs.requestsPerSecond).toLocaleString('en')} | ${theirs === null ? 'n/a' : `${theirs.p99Ms.toFixed(2)} ms`} | ${oursToTheirs === null ? 'n/a' : `${oursToTheirs.toFixed(2)}× (${byRound(target.edge, target.nginx).map(([one, other]) => ratio(one.requestsPerSecond, other.requestsPerSecond)).join(', ')})`} |`)
  const report = `# Benchmarks

Measured by \`npm run bench\` (bench/run.mjs) on ${new Date().toISOString().slice(0, 10)}.
Machine: ${machine}.
Method: wrk, 1 thread, 64 connections, ${durationSeconds} s per target, on loopback, after ${WARM_UP_SECONDS} s of unmeasured
load on each, in ${rounds} rounds in which the contenders take turns; the figures are the medians over the rounds, and each ratio is the median
of the rounds' ratios (each round's in brackets). nginx runs one worker process, as the edge is one
Node process, and serves the page the edge sends (as it is, brotli and gzip, the bytes the edge sent
for each, chosen by a map on Accept-Encoding) and the same assets, with the same response headers;
both serve the script's gzip variant. Numbers on a shared 2-core machine move
between runs; the ratios, measured side by side, are the figures to compare.

## Throughput

| request | edge req/s | edge p99 | nginx req/s | nginx p99 | edge ÷ nginx |
|---|---|---|---|---|---|
${rows.join('\n')}

Target: at least 0.5× nginx for the page and the main script; aim 0.7× for the page. A page that is
the same for everyone who asks the same is built and compressed once and kept with its variants
(server/edge/page/compressed-pages.ts); the page and the assets are answered from memory before
Fastify's router.

For scale, one Node process's ceiling on this machine: plain \`node:http\` answering the same page
bytes with the same headers from memory, with no routing and no per-request work, served
**${Math.round(plainNodePage.requestsPerSecond).toLocaleString('en')} req/s** (p99 ${plainNodePage.p99Ms.toFixed(2)} ms) in the same rounds: that is
${plainVsNginx === null ? 'n/a' : `${plainVsNginx.toFixed(2)}×`} nginx, and the edge's page reached ${edgeVsPlain.toFixed(2)}× of it.

## Metrics

The page from two edges alike but for \`METRICS_PORT\`, taking turns in each of the ${rounds} rounds (64 connections,
${durationSeconds} s each), the metered one scraped every second while loaded:

| edge | req/s | p99 |
|---|---|---|
| without metrics | ${Math.round(withoutSummary.requestsPerSecond).toLocaleString('en')} | ${withoutSummary.p99Ms.toFixed(2)} ms |
| with metrics, scraped | ${Math.round(withSummary.requestsPerSecond).toLocaleString('en')} | ${withSummary.p99Ms.toFixed(2)} ms |

With metrics the page is served at **${metricsRatio.toFixed(3)}×** the speed without (each round's:
${byRound(withMetrics, withoutMetrics).map(([one, other]) => ratio(one.requestsPerSecond, other.requestsPerSecond)).join(', ')}; target: at least 0.95×).
A scrape took ${middle(scrapeMs).toFixed(1)} ms at the median (${scrapeMs.length} scrapes); the scrape held ${seriesBefore} series
before the load and ${seriesAfter} after it (the page's request count and histogram, and the garbage collector's figures once it has run).

## Proxy overhead

One connection, sequential POSTs of a login body, 3 s each way per round (medians of ${rounds} rounds):

| path | p50 | p99 |
|---|---|---|
| straight to the backend | ${direct.p50Ms.toFixed(3)} ms | ${direct.p99Ms.toFixed(3)} ms |
| through the edge (\`/accounts/v2/login\`) | ${proxied.p50Ms.toFixed(3)} ms | ${proxied.p99Ms.toFixed(3)} ms |

The edge adds **${proxyOverheadMs.toFixed(3)} ms** at p50 (target: ≤ 1 ms): the same-origin and
content-type checks, reading the body within its 16 KiB limit, the rate limit, header rewriting,
and the second hop over loopback.

## Server start

From process start to listening, median of five: **${median(startTimes)} ms** with backends
configured (${startTimes.join(', ')} ms); target under 300 ms. The edge is one CommonJS bundle that
Node's compile cache holds (server/edge/main.ts); the same build with the cache turned off
(NODE_DISABLE_COMPILE_CACHE=1), started in turns with it, listens after **${median(uncachedStartTimes)} ms**
(${uncachedStartTimes.join(', ')} ms). With the embedded reference services
(no backends configured), the edge listens once they are ready, in their own process, after
**${median(embeddedStarts)} ms** (${embeddedStarts.join(', ')} ms), ${(median(embeddedStarts) / median(startTimes)).toFixed(2)}× the start with backends.
For scale, a Node process that only opens an empty \`node:http\` server listens after
**${median(floorStarts)} ms** here (${floorStarts.join(', ')} ms): that much of the edge's start is Node's own.
`
  console.log(report)
}

/** Logins against the hash's floor (bench/logins/login-capacity.mjs), printed as the report's last section. */
async function logins () {
  console.log(loginsReport(await measureLogins({ rounds, durationSeconds, log: (line) => console.error(line) })))
}

if (!process.argv.includes('--logins-only')) await main()
await logins()
