// npm run bench:lighthouse: Lighthouse (mobile: its default emulated phone,
// simulated slow 4G and 4× CPU) on every view of the page, performance,
// accessibility, best practices and SEO, against the built server with its
// embedded accounts service (the setup under which the edge shows setPassword
// too). Per view: the scores, the metrics, every audit Lighthouse cites (the
// page's deliberate `noindex` is one), and Lighthouse's CPU benchmark index
// (environment.benchmarkIndex), which says whether the performance score is
// worth reading: the 4× slowdown is calibrated for a high-end desktop, index
// 1500–2000 ("CPU throttling" in Lighthouse's throttling documentation,
// https://github.com/GoogleChrome/lighthouse/blob/main/docs/throttling.md#cpu-throttling),
// and Lighthouse itself warns that the score suffers below 1000
// (SLOW_CPU_BENCHMARK_INDEX_THRESHOLD in its core/gather/driver/environment.js).
// Lighthouse is not a dependency: npx fetches the pinned version on the first
// run and keeps it in npm's cache. Not part of CI (docs/development.md says why).
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { PAGE_VIEWS } from './page/page-views.mjs'
import { commandExists, startEdge } from './tools.mjs'

const LIGHTHOUSE = 'lighthouse@13.5.0'
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run']
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo']
// Audits that carry no pass or fail of their own.
const UNSCORED = new Set(['informative', 'notApplicable', 'manual', 'error'])
const METRICS = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index']
// Lighthouse's own bounds (see the header): below SLOW_HOST it warns that the score suffers; from NORMAL_HOST up, 4× is the phone it means.
const SLOW_HOST_BENCHMARK_INDEX = 1000
const NORMAL_HOST_BENCHMARK_INDEX = 1500

/**
 * The parts of Lighthouse's JSON report read here (Lighthouse is fetched by npx, so its own types are not at hand).
 * @typedef {{ id: string, title: string, displayValue?: string, score: number | null, scoreDisplayMode: string, details?: { items?: unknown } }} Audit
 * @typedef {{ score: number, auditRefs: Array<{ id: string, group?: string }> }} Category
 * @typedef {{ benchmarkIndex: number }} Environment
 * @typedef {{ categories: Record<string, Category>, audits: Record<string, Audit>, environment?: Environment, runWarnings?: string[], runtimeError?: { message: string } }} LighthouseReport
 */

execFileSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url)), '--if-stale'], { stdio: 'inherit' })
if (!commandExists(CHROMIUM)) {
  console.error(`bench:lighthouse: Chromium is not installed at ${CHROMIUM} (Debian package chromium)`)
  process.exit(1)
}

const folder = mkdtempSync(join(tmpdir(), 'threshold-lighthouse-'))
const dataDir = join(folder, 'data')
const edge = await startEdge({ DATA_DIR: dataDir })

/**
 * Runs Lighthouse on `url` and reads its JSON report.
 * @param {string} url
 * @param {string} reportPath
 * @returns {Promise<LighthouseReport>}
 */
async function lighthouse (url, reportPath) {
  // Node from this process first on PATH: Lighthouse needs Node 22.19 or later, which npm scripts run (the machine's may be older).
  const env = { ...process.env, CHROME_PATH: CHROMIUM, PATH: `${dirname(process.execPath)}:${process.env.PATH}` }
  await promisify(execFile)('npx', ['--yes', LIGHTHOUSE, url, '--quiet', '--output=json', `--output-path=${reportPath}`,
    `--only-categories=${CATEGORIES.join(',')}`, `--chrome-flags=${CHROME_FLAGS.join(' ')}`], { env, maxBuffer: 1 << 24 })
  return JSON.parse(readFileSync(reportPath, 'utf8'))
}

/**
 * The reasons an audit lists in its items (the back/forward cache's: why a page was not restored), one line each.
 * @param {Audit} audit
 */
function reasonsOf (audit) {
  const items = audit.details?.items
  if (!Array.isArray(items)) return []
  return items.flatMap((/** @type {{ reason?: unknown, failureType?: unknown }} */ item) =>
    typeof item.reason === 'string' ? [`      ${String(item.failureType)}: ${item.reason}`] : [])
}

/**
 * What the benchmark index says of the machine, in Lighthouse's own bounds (see the header).
 * @param {number} index
 */
function machineReading (index) {
  if (!Number.isFinite(index)) return 'no benchmark index in the report: the performance score cannot be judged'
  if (index < SLOW_HOST_BENCHMARK_INDEX) return `below ${SLOW_HOST_BENCHMARK_INDEX}: a starved machine, Lighthouse warns the performance score suffers; not a verdict`
  if (index < NORMAL_HOST_BENCHMARK_INDEX) return `${SLOW_HOST_BENCHMARK_INDEX}–${NORMAL_HOST_BENCHMARK_INDEX}: a low-end desktop, 4× emulates a slower phone than Lighthouse means; the score reads low`
  return `at least ${NORMAL_HOST_BENCHMARK_INDEX}: a normal machine, the performance score is a verdict`
}

/**
 * @param {import('./page/page-views.mjs').PageView} view
 * @param {LighthouseReport} result
 */
function summary (view, result) {
  const categoryNamed = (/** @type {string} */ name) => {
    const found = result.categories[name]
    if (found === undefined) throw new Error(`Lighthouse's report on ${view.name} has no category ${name}`)
    return found
  }
  const auditNamed = (/** @type {string} */ id) => {
    const found = result.audits[id]
    if (found === undefined) throw new Error(`Lighthouse's report on ${view.name} has no audit ${id}`)
    return found
  }
  const scores = CATEGORIES.map((name) => `${name} ${Math.round(categoryNamed(name).score * 100)}`).join(', ')
  const metrics = METRICS.map((id) => `${auditNamed(id).title} ${auditNamed(id).displayValue}`).join(', ')
  const index = Math.round(result.environment?.benchmarkIndex ?? Number.NaN)
  const cited = CATEGORIES.flatMap((name) => categoryNamed(name).auditRefs
    // The report's own view leaves out the hidden group (metrics such as Time to Interactive that weigh nothing).
    .filter((ref) => ref.group !== 'hidden')
    .map((ref) => auditNamed(ref.id))
    .filter((audit) => !UNSCORED.has(audit.scoreDisplayMode) && audit.score !== null && audit.score < 1 && !METRICS.includes(audit.id))
    .flatMap((audit) => [`    ${name}: ${audit.id}: ${audit.title}${audit.displayValue ? ` (${audit.displayValue})` : ''}`,
      // The back/forward cache's audit says why in its items.
      ...reasonsOf(audit)]))
  const warnings = (result.runWarnings ?? []).map((warning) => `  Lighthouse warns: ${warning.replace(/\s+/g, ' ')}`)
  return [
    `${view.name}: ${scores}; CPU benchmark index ${index} (${machineReading(index)})`,
    `  ${metrics}`,
    ...warnings,
    ...(cited.length === 0 ? ['  no audit cited'] : ['  audits cited (the aim: only is-crawlable, the deliberate noindex):', ...cited])
  ].join('\n')
}

try {
  console.log(`bench:lighthouse: ${LIGHTHOUSE}, mobile (its defaults), ${CATEGORIES.join(', ')}, Chromium at ${CHROMIUM}`)
  for (const view of PAGE_VIEWS) {
    const result = await lighthouse(edge.base + '/' + view.query, join(folder, `${view.name}.json`))
    if (result.runtimeError !== undefined) throw new Error(`Lighthouse on ${view.name}: ${result.runtimeError.message}`)
    console.log(summary(view, result))
  }
} finally {
  await edge.stop()
  rmSync(folder, { recursive: true, force: true })
}
