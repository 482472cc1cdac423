// npm run load:faults: two instances of the built server on one PostgreSQL and
// one Redis behind nginx (the shipped site file), under a mixed load, through
// a series of faults, one at a time (docs/performance.md#fault-run).
//
//   node bench/load-faults.mjs [--seconds-per-fault N (10)] [--faults NAME,NAME…] [--json]
//
// - Two instances of dist/server/main.js (built first if stale) with their
//   embedded reference service, the same environment (DATABASE_URL, REDIS_URL,
//   EDGE_SECRET, PUBLIC_URL) and one keys/ folder, each on its own port and
//   DATA_DIR; PostgreSQL, Redis and nginx are real processes on loopback ports
//   (bench/faults/services.mjs).
// - The load, through nginx over https (bench/faults/load.mjs): the page,
//   registrations (retried with the same address and password after a 5xx, as
//   a visitor would), right logins, wrong-then-right logins, and session
//   clients that each refresh their token every second, retrying a 5xx or an
//   unanswered call with the token they hold (docs/reference-service.md,
//   "Refreshing from a product").
// - Each fault (bench/faults/faults.mjs) runs with the load going: N seconds of load
//   before it, the fault itself, N seconds after it. Then: every registration
//   acknowledged (2xx) in its window must be in PostgreSQL, every session held
//   when it began must have refreshed since it ended (a 401 is a lost session),
//   and no right password may have been refused.
// Printed: a table of the faults, the errors by kind, what each fault did, and
// the judgement; exit code 1 when a registration, a session or a right
// password was lost, or an instance crashed. `--json` adds the figures as one
// JSON line at the end. No password or token is ever printed.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FAULTS } from './faults/faults.mjs'
import { createInstances } from './faults/instances.mjs'
import { createLoad } from './faults/load.mjs'
import { startPostgres } from './faults/postgres.mjs'
import { countLogEvents, countsSince, printReport } from './faults/report.mjs'
import { missingTools, SITE_HOST, startNginx, startRedis } from './faults/services.mjs'

const root = fileURLToPath(new URL('../', import.meta.url))
const argument = (/** @type {string} */ name) => {
  const index = process.argv.indexOf(name)
  return index === -1 ? undefined : process.argv[index + 1]
}
const secondsPerFault = Number(argument('--seconds-per-fault') ?? 10)
const faultNames = argument('--faults')?.split(',').map((name) => name.trim()).filter(Boolean) ?? FAULTS.map((fault) => fault.name)
const json = process.argv.includes('--json')
const unknown = faultNames.filter((name) => !FAULTS.some((fault) => fault.name === name))
if (!(secondsPerFault > 0) || unknown.length > 0) {
  console.error(`usage: node bench/load-faults.mjs [--seconds-per-fault N] [--faults ${FAULTS.map((fault) => fault.name).join(',')}] [--json]`)
  if (unknown.length > 0) console.error(`unknown faults: ${unknown.join(', ')}`)
  process.exit(2)
}
const missing = missingTools({ faketime: faultNames.includes('clock-skew') })
if (missing.length > 0) {
  console.error(`npm run load:faults needs: ${missing.join('; ')}`)
  process.exit(2)
}

const RATE_LIMIT_PER_MINUTE = 1_000_000
const UPSTREAM_TIMEOUT_MS = 3000
/** Longer than nginx keeps an idle connection (keepalive_timeout 5s in deploy/nginx/threshold.conf): docs/scale-out.md#rolling-restarts says why. */
const DRAIN_SECONDS = 6
const PASSWORD_HASH_COST = 12
/** Each freeze and lock outlasts the edge's timeout, so that the edge answers 504 while the work carries on. */
const FREEZE_MS = UPSTREAM_TIMEOUT_MS + 2000
const POSTGRES_DOWN_MS = 2000
const REDIS_OUTAGE_MS = 5000
/** After a fault, how long every session held when it began gets to refresh again. */
const SESSIONS_SETTLE_MS = 20_000
const SEED_ACCOUNTS = 40

execFileSync(process.execPath, [join(root, 'build.mjs'), '--if-stale'], { stdio: 'inherit' })

const folder = mkdtempSync(join(tmpdir(), 'threshold-load-faults-'))
// PostgreSQL (as the postgres account, when this runs as root) and nginx's workers must reach their folders in it.
chmodSync(folder, 0o755)
const runId = randomBytes(4).toString('hex')
/** @type {Array<import('./faults/instances.mjs').Crash & { fault: string }>} */
const crashes = []
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms))
/** @type {import('./faults/load.mjs').LoadWindow | null} */
let current = null
/** @type {Array<() => Promise<void>>} */
const started = []
const stopAll = async () => {
  for (const stop of started.reverse()) await stop().catch((error) => console.error(`stopping: ${error.message}`))
}

/** @type {import('./faults/report.mjs').FaultResult[]} */
const results = []
/** @type {ReturnType<typeof createLoad> | null} */
let load = null
/**
 * Every registration acknowledged in the run (the seeded accounts too), and how many of them PostgreSQL holds at its end.
 * @type {{ acknowledged: number, stored: number }}
 */
let overall
try {
  const postgres = await startPostgres(folder)
  started.push(() => postgres.stop())
  const redis = await startRedis(folder)
  started.push(() => redis.stop())
  const instances = await createInstances({
    folder,
    env: {
      PUBLIC_URL: `https://${SITE_HOST}`,
      TRUST_PROXY: 'loopback',
      DATABASE_URL: postgres.url('threshold'),
      REDIS_URL: redis.url,
      EDGE_SECRET: randomBytes(32).toString('base64'),
      PASSWORD_HASH_COST: String(PASSWORD_HASH_COST),
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
      CHALLENGE: 'off',
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      DRAIN_SECONDS: String(DRAIN_SECONDS)
    },
    onCrash (crash) {
      crashes.push({ ...crash, fault: current?.name ?? 'setup' })
      console.log(`\n  !! instance ${crash.instance} exited on its own (${crash.exit}) during ${current?.name ?? 'setup'}; the end of its log (${crash.logFile}):\n${crash.tail}\n`)
    }
  })
  started.push(() => instances.stopAll())
  // One after the other: the first makes the signing key and migrates, the second finds both done.
  for (const instance of instances.instances) await instances.start(instance)
  const nginx = await startNginx(folder, instances.ports)
  started.push(() => nginx.stop())
  load = createLoad({ port: nginx.port, host: SITE_HOST, runId })

  console.log(`npm run load:faults: ${faultNames.length} faults, ${secondsPerFault} s of load before and after each; Node ${process.version}, ${cpus().length} CPUs`)
  console.log(`  two built instances (ports ${instances.ports.join(', ')}) on one PostgreSQL and one Redis, behind nginx with deploy/nginx/threshold.conf's upstream settings`)
  console.log(`  RATE_LIMIT_PER_MINUTE=${RATE_LIMIT_PER_MINUTE} and CHALLENGE=off for the run: all the load comes from one address, which the default limit would answer with 429 and the challenge with 428`)
  console.log(`  PASSWORD_HASH_COST=${PASSWORD_HASH_COST} (the tests' cost), UPSTREAM_TIMEOUT_MS=${UPSTREAM_TIMEOUT_MS}, DRAIN_SECONDS=${DRAIN_SECONDS}, REFRESH_REUSE_GRACE_SECONDS at its default (30)`)
  console.log(`  freezes and locks last ${FREEZE_MS / 1000} s (longer than UPSTREAM_TIMEOUT_MS), PostgreSQL stays down ${POSTGRES_DOWN_MS / 1000} s, Redis ${REDIS_OUTAGE_MS / 1000} s`)
  console.log(`  logs: ${folder}\n`)

  await load.seed(SEED_ACCOUNTS)
  load.start()
  const context = {
    instances, postgres, redis, load, freezeMs: FREEZE_MS, postgresDownMs: POSTGRES_DOWN_MS, outageMs: REDIS_OUTAGE_MS, skewHoldMs: secondsPerFault * 1000
  }
  const logCounts = () => countLogEvents(instances.logFiles, nginx.logFile)
  for (const fault of FAULTS.filter((candidate) => faultNames.includes(candidate.name))) {
    const window = load.beginWindow(fault.name)
    current = window
    const crashesBefore = crashes.length
    const loggedBefore = logCounts()
    await sleep(secondsPerFault * 1000)
    const sessions = load.liveSessions()
    const faultAt = Date.now()
    const note = await fault.run(context)
    const faultEndedAt = Date.now()
    await sleep(secondsPerFault * 1000)
    const judged = await load.judgeSessions(sessions, faultEndedAt, SESSIONS_SETTLE_MS)
    // Those acknowledged by now: the load goes on while PostgreSQL is asked.
    const acknowledged = [...window.acknowledged]
    const stored = new Set((await postgres.query('SELECT email FROM accounts WHERE email = ANY($1)', [acknowledged])).map((row) => row.email))
    const lastError = Math.max(faultAt, ...window.errorTimes)
    const recovered = window.errorTimes.length === 0 ? faultAt : window.successes.find((at) => at > lastError) ?? null
    const result = {
      name: fault.name,
      what: fault.what,
      note,
      faultMs: faultEndedAt - faultAt,
      calls: window.calls,
      errors: window.errorTimes.length,
      errorsByKind: Object.fromEntries(window.errors),
      recoveryMs: recovered === null ? null : recovered - faultAt,
      registrations: { acknowledged: acknowledged.length, stored: stored.size, toldTakenAfterFailure: window.toldTaken },
      sessions: { held: sessions.size, alive: judged.alive, lost: window.lost.length, stuck: judged.stuck, lostReasons: window.lost.map((loss) => loss.reason) },
      rightPasswords: { tried: window.rightTried, refused: window.rightRefused.length, refusals: window.rightRefused },
      gaveUp: window.gaveUp,
      crashes: crashes.length - crashesBefore,
      logged: countsSince(loggedBefore, logCounts())
    }
    results.push(result)
    console.log(`  ${fault.name}: ${note}; ${result.errors} client-visible errors, sessions ${result.sessions.alive}/${result.sessions.held} alive, ${result.sessions.lost} lost`)
  }
  current = null
  await load.stop()
  const everyAcknowledged = load.acknowledged
  load = null
  const rows = await postgres.query('SELECT count(*)::int AS stored FROM accounts WHERE email = ANY($1)', [everyAcknowledged])
  overall = { acknowledged: everyAcknowledged.length, stored: rows[0].stored }
} finally {
  await load?.stop()
  await stopAll()
}

printReport(results, { sessionsSettleMs: SESSIONS_SETTLE_MS })

console.log(`\nover the whole run: ${overall.acknowledged} registrations acknowledged (the ${SEED_ACCOUNTS} seeded accounts included), ${overall.stored} of them stored`)
const missingRows = Math.max(overall.acknowledged - overall.stored,
  results.reduce((sum, result) => sum + result.registrations.acknowledged - result.registrations.stored, 0))
const lostSessions = results.reduce((sum, result) => sum + result.sessions.lost + result.sessions.stuck, 0)
const refused = results.reduce((sum, result) => sum + result.rightPasswords.refused, 0)
const pass = missingRows === 0 && lostSessions === 0 && refused === 0 && crashes.length === 0
console.log(`\njudgement: ${pass ? 'PASS' : 'FAIL'} (${missingRows} acknowledged registrations missing, ${lostSessions} sessions lost or stuck, ` +
  `${refused} right passwords refused, ${crashes.length} instances crashed; 0 of each allowed)`)
if (pass) rmSync(folder, { recursive: true, force: true })
else console.log(`the logs are kept in ${folder}`)
if (json) console.log(JSON.stringify({ secondsPerFault, faults: results, registrations: overall, crashes: crashes.map(({ tail: _tail, ...crash }) => crash), pass }))
process.exitCode = pass ? 0 : 1
