// npm test's tiers, each to its end whatever the one before it did: a failing
// unit tier still lets the integration tier run and report. Exits 1 if any
// failed, after one line naming which.
//
//   node build/test-runner/run-tiers.mjs SCRIPT…   (npm scripts, run with npm run)
import { spawnSync } from 'node:child_process'

const scripts = process.argv.slice(2)
if (scripts.length === 0) {
  console.error('usage: node build/test-runner/run-tiers.mjs SCRIPT…')
  process.exit(2)
}

// Under npm, the npm that runs this script; run by hand, the npm on PATH.
const npm = process.env.npm_execpath
const results = scripts.map((script) => {
  const run = npm === undefined
    ? spawnSync('npm', ['run', script], { stdio: 'inherit' })
    : spawnSync(process.execPath, [npm, 'run', script], { stdio: 'inherit' })
  return { script, status: run.status ?? 1 }
})
const failed = results.filter(({ status }) => status !== 0)
console.log(`\n${results.map(({ script, status }) => `${script} ${status === 0 ? 'passed' : `failed (exit ${status})`}`).join(', ')}` +
  (failed.length > 0 ? `: each tier's summary is at its end, above` : ''))
process.exitCode = failed.length > 0 ? 1 : 0
