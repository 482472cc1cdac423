// npm run bench:lighthouse: Lighthouse (mobile: its default emulated phone,
// simulated slow 4G and 4× CPU) on every view of the page, performance and
// accessibility, against the built server with its embedded accounts service
// (the setup under which the edge shows setPassword too). Lighthouse is not a
// dependency: npx fetches the pinned version on the first run and keeps it in
// npm's cache. Not part of CI (docs/development.md says why).
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
const CATEGORIES = ['performance', 'accessibility']
// Audits that carry no pass or fail of their own.
const UNSCORED = new Set(['informative', 'notApplicable', 'manual', 'error'])
const METRICS = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index']

/**
 * The parts of Lighthouse's JSON report read here (Lighthouse is fetched by npx, so its own types are not at hand).
 * @typedef {{ id: string, title: string, displayValue?: string, score: number | null, scoreDisplayMode: string }} Audit
 * @typedef {{ score: number, auditRefs: Array<{ id: string, group?: string }> }} Category
 * @typedef {{ categories: Record<string, Category>, audits: Record<string, Audit>, runtimeError?: { message: string } }} LighthouseReport
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
  const failing = CATEGORIES.flatMap((name) => categoryNamed(name).auditRefs
    // The report's own view leaves out the hidden group (metrics such as Time to Interactive that weigh nothing).
    .filter((ref) => ref.group !== 'hidden')
    .map((ref) => auditNamed(ref.id))
    .filter((audit) => !UNSCORED.has(audit.scoreDisplayMode) && audit.score !== null && audit.score < 1 && !METRICS.includes(audit.id))
    .map((audit) => `    ${name}: ${audit.title}${audit.displayValue ? ` (${audit.displayValue})` : ''}`))
  return [`${view.name}: ${scores}`, `  ${metrics}`, ...(failing.length === 0 ? ['  no failing audits'] : ['  failing audits:', ...failing])].join('\n')
}

try {
  console.log(`bench:lighthouse: ${LIGHTHOUSE}, mobile (its defaults), ${CATEGORIES.join(' and ')}, Chromium at ${CHROMIUM}`)
  for (const view of PAGE_VIEWS) {
    const result = await lighthouse(edge.base + '/' + view.query, join(folder, `${view.name}.json`))
    if (result.runtimeError !== undefined) throw new Error(`Lighthouse on ${view.name}: ${result.runtimeError.message}`)
    console.log(summary(view, result))
  }
} finally {
  await edge.stop()
  rmSync(folder, { recursive: true, force: true })
}
