// What a tier's TAP output (tap's `tap` reporter, as npm test prints it) says
// at the end, where a reader looks: the files and subtests skipped with their
// reasons, the files tap ended on its time limit, and the files that failed
// otherwise. tap prints each file's output whole when it ends, so a nested line
// belongs to the last top-level `# Subtest: FILE` before it.

/** A top-level `# Subtest: FILE`. */
const FILE_START = /^# Subtest: (.+)$/
/** A result at any depth; a skip ends in `# SKIP reason`. */
const RESULT = /^( *)(not )?ok \d+ - (.*?)(?: # time=[\d.]+ms)?(?:( # SKIP)(?: (.*))?)?$/
/** tap's time limit: the file's YAML says it was ended by SIGALRM, and a top-level `timeout!` names it as `expired`. */
const TIMEOUT_SIGNAL = /^ {2}signal: SIGALRM$/
const EXPIRED = /^ {2}expired: (.+)$/

/**
 * @typedef {{ file: string, test: string | null, reason: string }} Skip
 *   test: null when the whole file was skipped
 * @typedef {{ files: number, skipped: Skip[], timedOut: string[], failed: string[] }} TierSummary
 *   files: how many files the tier ran; failed: files that failed, not counting those that timed out
 */

/**
 * @param {string} output a tier's TAP output
 * @returns {TierSummary}
 */
export function summarizeTap (output) {
  /** @type {Skip[]} */
  const skipped = []
  /** @type {Set<string>} */
  const timedOut = new Set()
  /** @type {string[]} */
  const failedFiles = []
  /** @type {Set<string>} */
  const files = new Set()
  let file = ''
  /** The top-level result whose YAML block the lines now belong to. */
  let lastTopLevel = { name: '', failed: false }
  for (const line of output.split('\n')) {
    const start = FILE_START.exec(line)
    if (start !== null) file = start[1] ?? ''
    if (lastTopLevel.failed && TIMEOUT_SIGNAL.test(line)) timedOut.add(lastTopLevel.name)
    const expired = EXPIRED.exec(line)
    if (expired !== null && lastTopLevel.name === 'timeout!' && expired[1] !== 'TAP') timedOut.add(expired[1] ?? '')
    const result = RESULT.exec(line)
    if (result === null) continue
    const [, indent = '', not, name = '', skip, reason = ''] = result
    if (indent === '') {
      lastTopLevel = { name, failed: not !== undefined }
      if (name !== 'timeout!') files.add(name)
      if (not !== undefined && name !== 'timeout!') failedFiles.push(name)
    }
    if (skip !== undefined) skipped.push(indent === '' ? { file: name, test: null, reason } : { file, test: name, reason })
  }
  // A file tap ended on its limit may have no result of its own, only an `expired:` under `timeout!`.
  return { files: new Set([...files, ...timedOut]).size, skipped, timedOut: [...timedOut], failed: failedFiles.filter((name) => !timedOut.has(name)) }
}

/**
 * The lines printed after a tier: what was skipped, what timed out and whether the machine was loaded meanwhile.
 * @param {TierSummary} summary
 * @param {{ tier: string, timeout: number, cores: number, load: { mean: number, peak: number } }} run
 *   timeout: the limit a file had, in seconds; load: the one-minute load average sampled during the tier
 * @returns {string[]}
 */
export function summaryLines (summary, { tier, timeout, cores, load }) {
  const loadShown = `the load average was ${load.mean.toFixed(1)} (at most ${load.peak.toFixed(1)}) on ${cores} core${cores === 1 ? '' : 's'} during this tier`
  const lines = [`${tier} tier: ${summary.files} file${summary.files === 1 ? '' : 's'}, ${summary.skipped.length} skipped, ${summary.timedOut.length} timed out, ` +
    `${summary.failed.length} failed otherwise; ${loadShown}`]
  // Each line names its tier, so that CI's log shows them all by one pattern (.ci/run).
  for (const { file, test, reason } of summary.skipped) {
    lines.push(`${tier} tier skipped: ${file}${test === null ? '' : `: "${test}"`}${reason === '' ? '' : ` (${reason})`}`)
  }
  for (const file of summary.timedOut) lines.push(`${tier} tier timed out after ${timeout} s: ${file}`)
  for (const file of summary.failed) lines.push(`${tier} tier failed: ${file}`)
  if (summary.timedOut.length > 0) {
    lines.push(load.mean > cores
      ? `${tier} tier: a timeout under load is likely the load: files wait for a core when the load average is over ${cores}; \`npx tap FILE\` runs one alone`
      : `${tier} tier: the machine was not loaded (no more than ${cores} at a time on average): a timeout here is likely the test's own`)
  }
  return lines
}
