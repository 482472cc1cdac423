import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { REFERENCE_METRICS_TIMEOUT_MS, startEmbeddedServices, type EmbeddedServices } from '../../../../server/edge/upstream/embedded-services.js'
import { REFERENCE_METRICS_PATH } from '../../../../server/reference/metrics/metrics-route.js'
import { embeddedSecretHeaders } from '../../../../server/shared/embedded-secret.js'
import { GOOD_PASSWORD, TEST_PASSWORD_HASH_COST, temporaryDataDir } from '../../../fixtures/servers/reference.js'

// The edge reads the forked reference process's figures through
// EmbeddedServices.metrics(), to serve them after its own. The built
// reference entry is forked, as in production (integration tier: it needs
// dist/; forked from source through the test runner's TypeScript loader it
// takes some 15 s to start).

const REFERENCE_SCRIPT = fileURLToPath(new URL('../../../../dist/server/reference.js', import.meta.url))

/**
 * The processes this one forked running `script` (Linux /proc): the forked reference service, and
 * not another child such as the esbuild service the tests' TypeScript loader runs.
 */
function childrenOfThisProcess (script: string): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ours = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid
      if (ours && readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(script)) children.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return children
}

/** The built reference services forked as the edge forks them, with metrics kept or not, once they are up. */
async function startForkedServices (t: Test, options: { readonly metrics: boolean }): Promise<EmbeddedServices> {
  const services = await startEmbeddedServices({
    // Never the public range API (tests run offline): breached passwords have their own tests with a local corpus.
    env: {
      DATA_DIR: temporaryDataDir(t),
      PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      LOG_LEVEL: 'warn',
      BREACHED_PASSWORDS: 'off',
      // fork() gives the child this test process's flags, tap's TypeScript --import among them, which loads
      // ts-node unless TAP_TYPE_STRIP_ONLY says not to: under ts-node the built service takes some 25 s to start.
      ...(process.env.TAP_TYPE_STRIP_ONLY === undefined ? {} : { TAP_TYPE_STRIP_ONLY: process.env.TAP_TYPE_STRIP_ONLY })
    },
    accounts: true,
    edgeAuth: true,
    edgePort: 8080,
    referenceScript: REFERENCE_SCRIPT,
    metrics: options.metrics
  })
  t.teardown(() => services.stop())
  await services.ready
  return services
}

t.test('metrics() fetches the forked service\'s figures with its token; others are refused; a stalled or stopped service gives \'\' in bounded time', async (t) => {
  const services = await startForkedServices(t, { metrics: true })

  const register = await fetch(`${services.url}/register`, {
    method: 'POST',
    headers: { ...embeddedSecretHeaders(services.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'forked@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
  })
  t.equal(register.status, 200)
  const text = await services.metrics()
  t.match(text, /^threshold_reference_password_hash_duration_seconds_count\{operation="hash"\} 2$/m, 'the registration\'s hash and the decoy')
  t.match(text, /^threshold_reference_sign_ins_total\{method="password",outcome="success"\} 0$/m)
  t.match(text, /^threshold_reference_process_resident_memory_bytes \d+/m, 'and the process\'s own figures')
  t.notOk(text.includes('forked@example.com'))

  const stranger = await fetch(`${services.url}${REFERENCE_METRICS_PATH}`)
  t.equal(stranger.status, 403, 'another process on the host, without the edge\'s secret, is refused')
  const withoutToken = await fetch(`${services.url}${REFERENCE_METRICS_PATH}`, { headers: embeddedSecretHeaders(services.secret) })
  t.equal(withoutToken.status, 401, 'and the metrics still want their token')

  const [child] = childrenOfThisProcess(REFERENCE_SCRIPT)
  t.ok(child !== undefined, 'the forked service is found')
  process.kill(child!, 'SIGSTOP')
  const started = performance.now()
  const stalled = await services.metrics().finally(() => process.kill(child!, 'SIGCONT'))
  const tookMs = performance.now() - started
  t.equal(stalled, '', 'a stalled service gives no figures')
  t.ok(tookMs >= REFERENCE_METRICS_TIMEOUT_MS - 50 && tookMs < REFERENCE_METRICS_TIMEOUT_MS + 1000, `within the bound (${tookMs.toFixed(0)} ms)`)
  t.match(await services.metrics(), /threshold_reference_/, 'and its figures again once it goes on')

  await services.stop()
  t.equal(await services.metrics(), '', 'a stopped service gives no figures')
})

t.test('without METRICS_PORT the forked service keeps no metrics: no route, and metrics() gives \'\' without asking', async (t) => {
  const services = await startForkedServices(t, { metrics: false })
  t.equal(await services.metrics(), '')
  const asked = await fetch(`${services.url}${REFERENCE_METRICS_PATH}`, { headers: embeddedSecretHeaders(services.secret) })
  t.equal(asked.status, 404, 'the route does not exist')
})
