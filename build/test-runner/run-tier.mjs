// One tier of the suite through tap, paced to the machine (tier-plan.mjs), with
// a summary at the end (tap-summary.mjs): npm run test:unit and
// npm run test:integration call it.
//
//   node build/test-runner/run-tier.mjs NAME --jobs N [tap's arguments…]
//     N: the tier's files at a time on an idle machine. Prints what it chose and
//     why, tap's output as it comes, then the summary; exits with tap's status.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { summarizeTap, summaryLines } from './tap-summary.mjs'
import { tierPlan } from './tier-plan.mjs'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const TAP = `${ROOT}node_modules/.bin/tap`
/** How often the load is sampled while the tier runs, for the summary. */
const LOAD_SAMPLE_MS = 5000

const [tier, jobsFlag, jobsValue, ...tapArgs] = process.argv.slice(2)
const idleJobs = Number(jobsValue)
if (tier === undefined || jobsFlag !== '--jobs' || !Number.isInteger(idleJobs) || idleJobs < 1) {
  console.error('usage: node build/test-runner/run-tier.mjs NAME --jobs N [tap arguments…]')
  process.exit(2)
}
// The summary names the limit the runner chose; for a limit of your own, run tap itself (npx tap --timeout=N FILE…).
if (tapArgs.some((arg) => /^(-j|--jobs|-t|--timeout)/.test(arg))) {
  console.error('run-tier.mjs chooses the files at a time and the time limit itself: run npx tap to choose them')
  process.exit(2)
}

// tap's own limit, which `npx tap FILE` uses too, is the one an idle machine gets.
const tapConfig = /** @type {{ tap: { timeout: number } }} */ (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'))).tap
const cores = availableParallelism()
const plan = tierPlan({ cores, load: loadavg()[0] ?? 0, jobs: idleJobs, timeout: tapConfig.timeout })
console.log(`${tier} tier: ${plan.reason}`)

/** @type {number[]} */
const loads = [loadavg()[0] ?? 0]
const sampler = setInterval(() => loads.push(loadavg()[0] ?? 0), LOAD_SAMPLE_MS)
/** @type {Buffer[]} */
const output = []
const child = spawn(TAP, [`-j${plan.jobs}`, `--timeout=${plan.timeout}`, ...tapArgs], { cwd: ROOT, stdio: ['inherit', 'pipe', 'inherit'] })
child.stdout.on('data', (/** @type {Buffer} */ chunk) => {
  process.stdout.write(chunk)
  output.push(chunk)
})
child.on('close', (code, signal) => {
  clearInterval(sampler)
  // latin1: the output holds some bytes that are not UTF-8 (test output); every line the summary reads is ASCII.
  const summary = summarizeTap(Buffer.concat(output).toString('latin1'))
  const load = { mean: loads.reduce((sum, value) => sum + value, 0) / loads.length, peak: Math.max(...loads) }
  console.log(['', ...summaryLines(summary, { tier, timeout: plan.timeout, cores, load })].join('\n'))
  if (signal !== null) console.log(`${tier} tier: tap was ended by ${signal}`)
  process.exitCode = code ?? 1
})
