// npm run bench:page: when the login form is visible, usable and hydrated
// (bench/page/page-milestones.mjs defines the three), in headless Chromium with 4×
// CPU throttling and a fast-3G-like network (150 ms round trip, 1.6 Mbit/s
// down, 750 kbit/s up, as Lighthouse simulates it). Each run is a first visit
// (empty cache, fresh browser context) and then a repeat visit in the same
// context (assets cached, as they are for a year); prints the medians of 10
// runs and the runs themselves, and the size of the view's HTML.
//
//   npm run bench:page                  the login view
//   npm run bench:page -- --views       login, register and resetPassword
//   npm run bench:page -- --runs 3      fewer runs (a quick look; the aim is judged on 10)
import { execFileSync } from 'node:child_process'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { watchPageMilestones } from './page/page-milestones.mjs'
import { pageView } from './page/page-views.mjs'
import { commandExists, median, portOf, startEdge } from './tools.mjs'

/** @import { BrowserContext } from 'playwright-core' */
/** @import { WatchedWindow } from './page/page-milestones.mjs' */
/** @import { PageView } from './page/page-views.mjs' */
/** @typedef {Record<'visible' | 'usable' | 'hydrated', number>} VisitMilestones */

const DEFAULT_RUNS = 10
const AIM_FIRST_VISIT_USABLE_MS = 600
const MILESTONES = /** @type {const} */ (['visible', 'usable', 'hydrated'])
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const NETWORK = { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 }
// setPassword is left out: the edge shows it only with the embedded accounts service, and this bench's backend is a stand-in.
const VIEWS_FLAG_VIEWS = ['login', 'register', 'resetPassword']

const { values: options } = parseArgs({ options: { views: { type: 'boolean', default: false }, runs: { type: 'string', default: String(DEFAULT_RUNS) } } })
const runs = Number(options.runs)
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`bench:page: --runs must be a whole number of at least 1, not ${JSON.stringify(options.runs)}`)
  process.exit(1)
}
const views = (options.views ? VIEWS_FLAG_VIEWS : ['login']).map(pageView)

execFileSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url)), '--if-stale'], { stdio: 'inherit' })
if (!commandExists(CHROMIUM)) {
  console.error(`bench:page: Chromium is not installed at ${CHROMIUM} (Debian package chromium)`)
  process.exit(1)
}

// The page calls no backend before its form is usable; a stand-in answers anything it might.
const backend = createServer((_request, response) => response.end('{}')).listen(0, '127.0.0.1')
await new Promise((resolve) => backend.once('listening', resolve))
const backendUrl = `http://127.0.0.1:${portOf(backend)}`
const edge = await startEdge({ ACCOUNTS_URL: backendUrl, EDGE_AUTH_URL: backendUrl, LOG_LEVEL: 'info' })
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
})

/**
 * The view's HTML as the edge sends it, and its size gzipped (the edge sends it brotli or gzip by Accept-Encoding, docs/performance.md#serving).
 * @param {PageView} view
 */
async function htmlSize (view) {
  const response = await fetch(edge.base + '/' + view.query, { headers: { 'accept-encoding': 'identity' } })
  const body = Buffer.from(await response.arrayBuffer())
  if (!response.ok) throw new Error(`GET /${view.query} answered ${response.status}`)
  return { raw: body.length, gzip: gzipSync(body).length, encoding: response.headers.get('content-encoding') ?? 'none' }
}

/**
 * @param {BrowserContext} context
 * @param {PageView} view
 * @returns {Promise<VisitMilestones>}
 */
async function visit (context, view) {
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', NETWORK)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
  await page.addInitScript(watchPageMilestones, view.submitText)
  await page.goto(edge.base + '/' + view.query, { waitUntil: 'commit' })
  await page.waitForFunction(
    (names) => names.every((name) => /** @type {WatchedWindow} */ (window).__pageMilestones?.[name] !== undefined), MILESTONES, { timeout: 30_000 })
  const milestones = await page.evaluate(() => /** @type {WatchedWindow} */ (window).__pageMilestones)
  await page.close()
  const at = (/** @type {keyof VisitMilestones} */ name) => Math.round(milestones?.[name] ?? Number.NaN)
  return { visible: at('visible'), usable: at('usable'), hydrated: at('hydrated') }
}

/** @param {PageView} view */
async function measureView (view) {
  /** @type {VisitMilestones[]} */
  const first = []
  /** @type {VisitMilestones[]} */
  const repeat = []
  for (let run = 0; run < runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    first.push(await visit(context, view))
    repeat.push(await visit(context, view))
    await context.close()
  }
  return { first, repeat }
}

const kb = (/** @type {number} */ bytes) => `${(bytes / 1024).toFixed(1)} KiB`
const medianOf = (/** @type {VisitMilestones[]} */ visits, /** @type {keyof VisitMilestones} */ name) => median(visits.map((one) => one[name]))

/**
 * @param {PageView} view
 * @param {Awaited<ReturnType<typeof htmlSize>>} size
 * @param {{ first: VisitMilestones[], repeat: VisitMilestones[] }} visits
 */
function report (view, size, { first, repeat }) {
  const lines = [
    `${view.name} view (submit button "${view.submitText}"), HTML ${size.raw} B = ${kb(size.raw)} raw, ${size.gzip} B = ${kb(size.gzip)} gzipped (the edge sends it with content-encoding ${size.encoding})`,
    `  median of ${runs}, ms     ${MILESTONES.map((name) => name.padStart(8)).join(' ')}`
  ]
  for (const [label, visits] of /** @type {const} */ ([['first visit ', first], ['repeat visit', repeat]])) {
    lines.push(`  ${label}          ${MILESTONES.map((name) => String(medianOf(visits, name)).padStart(8)).join(' ')}`)
  }
  for (const [label, visits] of /** @type {const} */ ([['first', first], ['repeat', repeat]])) {
    for (const name of MILESTONES) lines.push(`    ${label} ${name} runs: ${visits.map((one) => one[name]).join(', ')}`)
  }
  const firstUsable = medianOf(first, 'usable')
  const repeatUsable = medianOf(repeat, 'usable')
  lines.push(`  aim: usable ≤ ${AIM_FIRST_VISIT_USABLE_MS} ms on a first visit: ${firstUsable} ms, ${firstUsable <= AIM_FIRST_VISIT_USABLE_MS ? 'met' : 'not met'}; ` +
    `repeat visit faster than the first: ${repeatUsable} ms, ${repeatUsable < firstUsable ? 'met' : 'not met'}`)
  return lines.join('\n')
}

try {
  console.log(`bench:page: 4× CPU throttling, fast 3G (150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up), 1280×800; ms since navigation start
  visible: the first frame with the submit button laid out and every stylesheet loaded; usable: visible, enabled, and hydrated or
  in a form that posts without scripts; hydrated: React's fiber on the button (polled once a frame). bench/page/page-milestones.mjs says more.`)
  for (const view of views) {
    const size = await htmlSize(view)
    console.log(report(view, size, await measureView(view)))
  }
} finally {
  await browser.close()
  await edge.stop()
  backend.close()
}
