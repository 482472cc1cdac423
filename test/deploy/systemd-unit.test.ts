import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { loadServerConfig } from '../../server/edge/config.js'
import { DEFAULT_DRAIN_SECONDS } from '../../server/edge/config.js'
import { SHUTDOWN_DEADLINE_MS } from '../../server/edge/run-edge.js'
import { loadReferenceConfig } from '../../server/reference/config.js'
import { DEPLOY_FILES, serviceEnvironment } from '../fixtures/deploy/deploy-files.js'
import { findExecutable, skipUnlessInstalled } from '../fixtures/servers/local-services.js'

/**
 * deploy/systemd/threshold.service, as systemd reads it: `systemd-analyze
 * verify` finds nothing to say, `systemd-analyze security` rates its
 * exposure, and its environment (with the example environment file) is a
 * configuration the server accepts.
 *
 * verify refuses a unit whose ExecStart program is missing, and Node is not
 * at the unit's /usr/bin/node on every machine (CI's comes from the npm
 * registry). So the unit is checked as a copy in a temporary folder with that
 * one path replaced by the Node running this test; every other line is the
 * real file's.
 */

const SYSTEMD_ANALYZE = findExecutable('systemd-analyze', '/usr/bin/systemd-analyze', '/bin/systemd-analyze')
const skip = skipUnlessInstalled('systemd-analyze', SYSTEMD_ANALYZE, 'systemd')
const UNIT = readFileSync(DEPLOY_FILES.unit, 'utf8')
const NODE_IN_UNIT = '/usr/bin/node'

/** `systemd-analyze security` rates exposure from 0 (locked down) to 10; a careful operator's unit stays at or below this. */
const MAX_EXPOSURE = 2

/** The unit as a file `name` in a fresh folder, Node's path replaced and `change` applied; returns its path. */
function unitCopy (t: Test, name: string, change: (text: string) => string = (text) => text): string {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-unit-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, name)
  writeFileSync(path, change(UNIT.replaceAll(NODE_IN_UNIT, process.execPath)))
  return path
}

function analyze (...args: string[]): { status: number | null, output: string } {
  const result = spawnSync(SYSTEMD_ANALYZE!, args, { encoding: 'utf8', env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' } })
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() }
}

/** Every Key= of the [Service] section (the last value where a key repeats). */
function serviceSettings (): Record<string, string> {
  const section = UNIT.slice(UNIT.indexOf('[Service]'), UNIT.indexOf('[Install]'))
  return Object.fromEntries([...section.matchAll(/^(\w+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]))
}

t.test('the unit names Node where ExecStart runs it, so that the copy checked is the unit', async (t) => {
  t.match(UNIT, /^ExecStart=\/usr\/bin\/node \/opt\/threshold\/dist\/server\/main\.js$/m)
})

t.test('systemd-analyze verify finds nothing to say about the unit', { skip }, async (t) => {
  const { status, output } = analyze('verify', '--man=no', unitCopy(t, 'threshold.service'))
  t.equal(status, 0)
  t.equal(output, '', 'no warning (systemd warns, and still exits 0, about a value it cannot read)')
})

t.test('verify does catch a mistake in this unit (the check above can fail)', { skip }, async (t) => {
  const cases: Array<[string, (text: string) => string, RegExp]> = [
    ['a kill mode misspelt', (text) => text.replace(/^KillMode=mixed$/m, 'KillMode=mixd'), /kill mode/i],
    ['an unknown setting', (text) => text.replace(/^ProtectSystem=strict$/m, 'ProtectSystm=strict'), /unknown key/i],
    ['a missing program', (text) => text.replace(/^ExecStart=\S+/m, 'ExecStart=/nonexistent/node'), /not executable|No such file/i]
  ]
  for (const [what, change, said] of cases) {
    t.match(analyze('verify', '--man=no', unitCopy(t, 'threshold.service', change)).output, said, what)
  }
})

t.test('the unit made a template for several instances on one machine (docs/production.md) verifies too', { skip }, async (t) => {
  const template = unitCopy(t, 'threshold@.service', (text) => text.replace(/\bPORT=8080\b/, 'PORT=%i'))
  t.not(readFileSync(template, 'utf8'), UNIT.replaceAll(NODE_IN_UNIT, process.execPath), 'the port is the instance name')
  const { status, output } = analyze('verify', '--man=no', template)
  t.equal(status, 0)
  t.equal(output, '')
})

t.test(`systemd-analyze security rates the unit's exposure at most ${MAX_EXPOSURE} of 10`, { skip }, async (t) => {
  const { output } = analyze('security', '--offline=yes', '--no-pager', unitCopy(t, 'threshold.service'))
  const exposure = /Overall exposure level for threshold\.service: (\d+(?:\.\d+)?)/.exec(output)?.[1]
  t.ok(exposure !== undefined, 'an exposure level is reported')
  t.comment(`exposure ${exposure} (0 locked down … 10 exposed)`)
  t.ok(Number(exposure) <= MAX_EXPOSURE, `${exposure} ≤ ${MAX_EXPOSURE}`)
})

t.test('stopping lets the edge finish: SIGTERM to it alone, and SIGKILL only after its default drain and its own shutdown deadline', async (t) => {
  const settings = serviceSettings()
  t.equal(settings.KillSignal, 'SIGTERM')
  t.equal(settings.KillMode, 'mixed', 'the reference service, its child, is stopped by the edge, after the requests in flight')
  const stopSeconds = Number(/^(\d+)s$/.exec(settings.TimeoutStopSec ?? '')?.[1])
  const edgeMs = DEFAULT_DRAIN_SECONDS * 1000 + SHUTDOWN_DEADLINE_MS
  t.ok(stopSeconds * 1000 > edgeMs, `TimeoutStopSec ${stopSeconds} s > the edge's ${DEFAULT_DRAIN_SECONDS} s drain and ${SHUTDOWN_DEADLINE_MS / 1000} s deadline`)
})

t.test('DATA_DIR is the state directory systemd makes, for the service\'s user alone', async (t) => {
  const settings = serviceSettings()
  t.equal(settings.StateDirectory, 'threshold')
  t.equal(settings.StateDirectoryMode, '0700', 'the mode the reference service keeps it at (server/reference/store/private-files.ts)')
  t.equal(serviceEnvironment().DATA_DIR, '/var/lib/threshold')
  t.equal(settings.User, 'threshold')
  t.notOk('DynamicUser' in settings, 'a fixed user: DATA_DIR outlives the service and is backed up')
})

t.test('the unit\'s environment with the example environment file is a configuration the server accepts', async (t) => {
  const env = serviceEnvironment()
  t.equal(env.NODE_ENV, 'production')
  const edge = loadServerConfig(env)
  t.equal(edge.host, '127.0.0.1', 'loopback only: nginx in front')
  t.equal(edge.port, 8080)
  t.same(edge.trustProxy, ['loopback'], 'X-Forwarded-* believed from loopback alone')
  t.same(edge.allowedHosts, ['signin.example.com'], 'the host of PUBLIC_URL')
  const reference = loadReferenceConfig(env, edge.port)
  t.equal(reference.dataDir, '/var/lib/threshold')
  t.equal(reference.publicUrl, 'https://signin.example.com')
})
