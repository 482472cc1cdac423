// Where npm test's time goes, for CI's log: how long each phase took and the
// slowest test files of each tier, so that a slow run names what to look at.
//
//   npm test 2>&1 | node .ci/test-timings.mjs stamp STAMPS | tee LOG
//     passes the output through unchanged, and writes to STAMPS the second
//     (since npm test started) at which each npm script began, and the end.
//   node .ci/test-timings.mjs report LOG STAMPS
//     prints the phases (typecheck, build, each tier…) and, for each tier, the
//     slowest files with their seconds, from tap's `ok N - FILE # time=…ms`.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'

const SLOWEST = 15
/** npm's header line when it runs a script: `> threshold@0.1.0 test:unit`. */
const SCRIPT_HEADER = /^> \S+@\S+ (\S+)$/
/** build.mjs's last line, with its own duration: the build runs inside another phase's command (`npm run typecheck && node build.mjs && …`). */
const BUILD_DONE = /^build: .* in ([\d.]+) s\b/
/** tap's line for one test file at the top level of a tier's output. */
const FILE_RESULT = /^(?:not )?ok \d+ - (\S+)(?: .*)? # time=([\d.]+)ms/

const [mode, first, second, ...rest] = process.argv.slice(2)
if (mode === 'stamp' && first !== undefined && second === undefined) stamp(first)
else if (mode === 'report' && first !== undefined && second !== undefined && rest.length === 0) report(first, second)
else {
  console.error('usage: node .ci/test-timings.mjs stamp STAMPS | report LOG STAMPS')
  process.exit(2)
}

/** @param {string} stampsPath */
function stamp (stampsPath) {
  const started = performance.now()
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1)
  writeFileSync(stampsPath, '')
  let partial = ''
  process.stdin.pipe(process.stdout)
  process.stdin.on('data', (/** @type {Buffer} */ chunk) => {
    const lines = (partial + chunk.toString('latin1')).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) {
      const script = SCRIPT_HEADER.exec(line)?.[1]
      if (script !== undefined) appendFileSync(stampsPath, `${seconds()} ${script}\n`)
    }
  })
  process.stdin.on('end', () => appendFileSync(stampsPath, `${seconds()} (end)\n`))
}

/**
 * @param {string} logPath
 * @param {string} stampsPath
 */
function report (logPath, stampsPath) {
  // latin1: the log holds some bytes that are not UTF-8 (test output); every line this reads is ASCII.
  const lines = readFileSync(logPath, 'latin1').split('\n')
  /** @type {Map<string, Array<{ file: string, seconds: number }>>} */
  const tiers = new Map()
  let script = ''
  let buildSeconds = null
  /** The phase the build ran in. */
  let buildIn = ''
  for (const line of lines) {
    const header = SCRIPT_HEADER.exec(line)?.[1]
    if (header !== undefined) script = header
    const build = BUILD_DONE.exec(line)
    if (build !== null) {
      buildSeconds = Number(build[1])
      buildIn = script
    }
    const result = FILE_RESULT.exec(line)
    if (result !== null) {
      if (!tiers.has(script)) tiers.set(script, [])
      tiers.get(script)?.push({ file: result[1] ?? '', seconds: Number(result[2]) / 1000 })
    }
  }

  const stamps = existsSync(stampsPath)
    ? readFileSync(stampsPath, 'utf8').split('\n').filter(Boolean).map((line) => {
      const [at, name] = line.split(' ')
      return { at: Number(at), name: name ?? '' }
    })
    : []
  // Each npm script runs until the next one begins; the first (`test`) only runs the others.
  const phases = stamps.slice(0, -1).map((stamp, i) => ({ name: stamp.name, seconds: (stamps[i + 1]?.at ?? stamp.at) - stamp.at })).slice(1)
  if (buildSeconds !== null && phases.length > 0) {
    const host = phases.find((phase) => phase.name === buildIn)
    if (host !== undefined) host.seconds -= buildSeconds
    phases.splice(host === undefined ? phases.length : phases.indexOf(host) + 1, 0, { name: 'build', seconds: buildSeconds })
  }
  if (phases.length > 0) {
    const total = (stamps.at(-1)?.at ?? 0) - (stamps[0]?.at ?? 0)
    console.log(`ci: npm test by phase: ${phases.map((phase) => `${phase.name} ${phase.seconds.toFixed(1)} s`).join(', ')}; ${total.toFixed(1)} s in all`)
  }
  for (const [tier, files] of tiers) {
    const sum = files.reduce((seconds, file) => seconds + file.seconds, 0)
    console.log(`ci: ${tier}: the slowest ${Math.min(SLOWEST, files.length)} of ${files.length} files (${sum.toFixed(0)} s of file time in all, files running side by side)`)
    for (const { file, seconds } of [...files].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST)) {
      console.log(`${seconds.toFixed(1).padStart(7)} s  ${file}`)
    }
  }
}
