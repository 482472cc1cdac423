// What npm run load:faults prints: the table of the faults, the definitions of
// its columns, and what the logs said during each fault.
import { existsSync, readFileSync } from 'node:fs'

/** The service's audit events worth a line in the report (docs/reference-service.md; the log holds no address or token). */
const AUDIT_EVENTS = ['token.reuse-detected', 'token.refused', 'login.throttled', 'login.slowed', 'register.repeated']

/**
 * One fault's row of the report (bench/load-faults.mjs measures it).
 * @typedef {object} FaultResult
 * @property {string} name
 * @property {string} what
 * @property {string} note what the fault's run said it did
 * @property {number} faultMs
 * @property {number} calls
 * @property {number} errors
 * @property {Record<string, number>} errorsByKind
 * @property {number | null} recoveryMs null: never recovered
 * @property {{ acknowledged: number, stored: number, toldTakenAfterFailure: number }} registrations
 * @property {{ held: number, alive: number, lost: number, stuck: number, lostReasons: Array<string | null> }} sessions
 * @property {{ tried: number, refused: number, refusals: Array<{ kind: string, status: number, reason: string | null }> }} rightPasswords
 * @property {number} gaveUp
 * @property {number} crashes
 * @property {Record<string, number>} logged
 */

/**
 * Counts, in the instances' logs and nginx's error log so far: the audit
 * events above, the lines at level error or fatal, and nginx's errors by kind.
 * A fault's share is the difference between two counts (`countsSince`).
 * @param {string[]} instanceLogs
 * @param {string} nginxLog
 */
export function countLogEvents (instanceLogs, nginxLog) {
  /** @type {Map<string, number>} */
  const counts = new Map()
  const add = (/** @type {string} */ label) => counts.set(label, (counts.get(label) ?? 0) + 1)
  for (const file of instanceLogs) {
    if (!existsSync(file)) continue
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const audit = /"audit":"([\w.-]+)"/.exec(line)?.[1]
      if (audit !== undefined && AUDIT_EVENTS.includes(audit)) add(`service: ${audit}`)
      const level = Number(/^\{"level":(\d+)/.exec(line)?.[1])
      if (level >= 50) add(`${line.includes('"service":"reference"') ? 'service' : 'edge'} logged ${level >= 60 ? 'fatal' : 'error'}: ${/"msg":"([^"]*)"/.exec(line)?.[1] ?? '?'}`)
    }
  }
  if (existsSync(nginxLog)) {
    for (const line of readFileSync(nginxLog, 'utf8').split('\n')) {
      const kind = /\[error\] \d+#\d+: \*\d+ (.+?) while /.exec(line)?.[1]
      if (kind !== undefined) add(`nginx: ${kind}`)
    }
  }
  return counts
}

/**
 * What was counted after `before` was.
 * @param {Map<string, number>} before
 * @param {Map<string, number>} after
 * @returns {Record<string, number>}
 */
export function countsSince (before, after) {
  return Object.fromEntries([...after].map(([label, count]) => /** @type {const} */ ([label, count - (before.get(label) ?? 0)])).filter(([, count]) => count > 0))
}

const pad = (/** @type {string | number} */ value, /** @type {number} */ width) => String(value).padStart(width)

/**
 * The table, its columns' definitions, and a paragraph per fault.
 * @param {FaultResult[]} results
 * @param {{ sessionsSettleMs: number }} options
 */
export function printReport (results, { sessionsSettleMs }) {
  console.log('\nfault                        errors  recovery  registrations  sessions      right passwords  crashes')
  console.log('                                       (s)    ack / stored   alive / lost  refused / tried')
  for (const result of results) {
    const recovery = result.recoveryMs === null ? 'never' : result.errors === 0 ? '-' : (result.recoveryMs / 1000).toFixed(1)
    console.log(`${result.name.padEnd(28)}${pad(result.errors, 7)}${pad(recovery, 10)}` +
      `${pad(result.registrations.acknowledged, 9)} / ${String(result.registrations.stored).padEnd(6)}` +
      `${pad(result.sessions.alive, 6)} / ${String(result.sessions.lost).padEnd(6)}` +
      `${pad(result.rightPasswords.refused, 9)} / ${String(result.rightPasswords.tried).padEnd(6)}${pad(result.crashes, 8)}`)
  }
  console.log('\nerrors: 5xx answers and calls left unanswered, as the load\'s clients saw them through nginx; each retry counts')
  console.log('recovery: from the fault\'s start to the first call answered successfully after the window\'s last error; - when none failed')
  console.log('registrations: acknowledged (200) in the window, and of those, found in PostgreSQL after it')
  console.log(`sessions: alive = held when the fault began and refreshed since it ended (within ${sessionsSettleMs / 1000} s); lost = refused 401 in the window, its owner never having ended it`)
  console.log('right passwords: logins with the right password (after a wrong one or not) answered other than 200 once 5xx retries were done, of those tried')
  console.log('\nby fault:')
  for (const result of results) {
    console.log(`  ${result.name}: ${result.what}. ${result.note}; ${result.calls} calls in the window`)
    const kinds = Object.entries(result.errorsByKind).map(([kind, count]) => `${kind} × ${count}`).join(', ')
    if (kinds !== '') console.log(`    answers other than expected: ${kinds}`)
    const logged = Object.entries(result.logged).map(([label, count]) => `${label} × ${count}`).join('; ')
    if (logged !== '') console.log(`    logged: ${logged}`)
    if (result.gaveUp > 0) console.log(`    calls given up after 60 s of retries: ${result.gaveUp}`)
    if (result.registrations.toldTakenAfterFailure > 0) console.log(`    registrations told "failed", then "taken" on the retry: ${result.registrations.toldTakenAfterFailure}`)
    if (result.sessions.stuck > 0) console.log(`    sessions neither refreshed nor refused after the fault: ${result.sessions.stuck}`)
    if (result.sessions.lost > 0) console.log(`    lost sessions' 401 reasons: ${JSON.stringify(result.sessions.lostReasons)}`)
    if (result.rightPasswords.refused > 0) {
      /** @type {Map<string, number>} */
      const refusals = new Map()
      for (const { kind, status, reason } of result.rightPasswords.refusals) {
        const label = `${kind} ${status}${reason === null ? '' : ` (${reason})`}`
        refusals.set(label, (refusals.get(label) ?? 0) + 1)
      }
      console.log(`    right passwords refused: ${[...refusals].map(([label, count]) => `${label} × ${count}`).join(', ')}`)
    }
  }
}
