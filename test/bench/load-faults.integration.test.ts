import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { findExecutable, skipUnlessInstalled } from '../fixtures/servers/local-services.js'
import { faketimeSkip } from '../fixtures/servers/faketime.js'
import { postgresSkip } from '../fixtures/servers/postgres-server.js'
import { redisSkip } from '../fixtures/servers/redis-server.js'

const LOAD_FAULTS = fileURLToPath(new URL('../../bench/load-faults.mjs', import.meta.url))
const skip = postgresSkip || redisSkip || faketimeSkip || skipUnlessInstalled('nginx', findExecutable('nginx', '/usr/sbin/nginx'), 'nginx-light')

/**
 * The faults the bounded run tries, within the integration tier's time: the
 * rolling restart and the crash of an instance, a PostgreSQL restart, the
 * two ways an answer gets lost while the work carries on (the accounts
 * service frozen, a table locked), each past the edge's timeout, and an
 * instance whose clock is five minutes ahead. The other three (connections
 * killed, Redis, PostgreSQL frozen) run in the full `npm run load:faults`.
 */
const FAULTS = ['sigterm-restart', 'sigkill-restart', 'postgres-restart', 'service-freeze', 'table-lock', 'clock-skew']

interface FaultResult {
  name: string
  calls: number
  errors: number
  errorsByKind: Record<string, number>
  registrations: { acknowledged: number, stored: number }
  sessions: { held: number, alive: number, lost: number, stuck: number }
  rightPasswords: { tried: number, refused: number }
  crashes: number
}
interface Summary {
  faults: FaultResult[]
  registrations: { acknowledged: number, stored: number }
  pass: boolean
}

// About a minute on two quiet cores; a loaded machine doubles it, past the suite's 120 s per file.
t.setTimeout(300_000)

t.test('npm run load:faults, shortened: no acknowledged registration, session or right password is lost to a fault', { skip }, async (t) => {
  const { code, stdout } = await new Promise<{ code: number, stdout: string }>((resolve) => {
    execFile(process.execPath, [LOAD_FAULTS, '--seconds-per-fault', '2', '--faults', FAULTS.join(','), '--json'],
      { timeout: 270_000, maxBuffer: 4 << 20 }, (error, stdout) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout })
      })
  })
  t.match(stdout, /RATE_LIMIT_PER_MINUTE=1000000 and CHALLENGE=off for the run: all the load comes from one address/, 'says why the limits are raised')
  t.match(stdout, /^fault\s+errors\s+recovery\s+registrations\s+sessions\s+right passwords\s+crashes$/m, 'the table header')
  t.match(stdout, /^recovery: from the fault's start/m, 'the definition of recovery')
  const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as Summary
  t.same(summary.faults.map((fault) => fault.name), FAULTS, 'each fault, in order')
  for (const fault of summary.faults) {
    t.match(stdout, new RegExp(`^${fault.name}\\s+\\d+\\s+(-|[\\d.]+)\\s+\\d+ / \\d+\\s+\\d+ / \\d+\\s+\\d+ / \\d+\\s+\\d+$`, 'm'), `${fault.name}: a row`)
    t.ok(fault.calls > 20 && fault.registrations.acknowledged > 0 && fault.rightPasswords.tried > 0 && fault.sessions.held > 0,
      `${fault.name}: the load ran (${fault.calls} calls, ${fault.registrations.acknowledged} registrations, ${fault.rightPasswords.tried} right passwords, ${fault.sessions.held} sessions)`)
    t.equal(fault.registrations.stored, fault.registrations.acknowledged, `${fault.name}: every acknowledged registration is stored`)
    t.equal(fault.sessions.lost, 0, `${fault.name}: no session lost`)
    t.equal(fault.sessions.alive, fault.sessions.held, `${fault.name}: every session held refreshes after it`)
    t.equal(fault.rightPasswords.refused, 0, `${fault.name}: no right password refused`)
    t.equal(fault.crashes, 0, `${fault.name}: no instance crashed`)
  }
  const rolling = summary.faults.find((fault) => fault.name === 'sigterm-restart')!
  t.same(rolling.errorsByKind, {}, 'a rolling restart behind the shipped nginx file fails no call')
  const frozen = summary.faults.find((fault) => fault.name === 'service-freeze')!
  t.ok(Object.keys(frozen.errorsByKind).some((kind) => / 504$/.test(kind)), `the frozen service made the edge answer 504 (${JSON.stringify(frozen.errorsByKind)})`)
  t.equal(summary.registrations.stored, summary.registrations.acknowledged, `over the run: ${summary.registrations.acknowledged} acknowledged, all stored`)
  t.equal(summary.pass, true)
  t.equal(code, 0, 'the exit code says so')
})
