// npm test's tiers run to their end whatever the one before did, and npm test
// fails if any failed: run-tiers.mjs on a package of its own whose first
// "tier" fails and whose second records that it ran.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'

const RUN_TIERS = fileURLToPath(new URL('../../../build/test-runner/run-tiers.mjs', import.meta.url))

/** Runs run-tiers.mjs with the given npm scripts in a folder of their own. */
function runTiers (t: Test, scripts: Record<string, string>): { dir: string, status: number | null, stdout: string } {
  const dir = t.testdir({ 'package.json': JSON.stringify({ name: 'tiers', version: '1.0.0', scripts }) })
  // Without npm's variables: run-tiers.mjs then runs the npm on PATH, as a shell would.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')))
  const run = spawnSync(process.execPath, [RUN_TIERS, ...Object.keys(scripts)], { cwd: dir, env, encoding: 'utf8' })
  return { dir, status: run.status, stdout: run.stdout }
}

t.test('a failed first tier: the second still runs, and the whole fails naming which', async (t) => {
  const { dir, status, stdout } = runTiers(t, { 'test:unit': 'exit 3', 'test:integration': 'node -e "require(\'fs\').writeFileSync(\'ran\', \'\')"' })
  t.ok(existsSync(`${dir}/ran`), 'the integration tier ran')
  t.equal(status, 1)
  t.match(stdout, /test:unit failed \(exit 3\), test:integration passed: each tier's summary is at its end, above/)
})

t.test('a failed last tier fails the whole, and both passing passes', async (t) => {
  t.equal(runTiers(t, { 'test:unit': 'exit 0', 'test:integration': 'exit 1' }).status, 1)
  const passing = runTiers(t, { 'test:unit': 'exit 0', 'test:integration': 'exit 0' })
  t.equal(passing.status, 0)
  t.match(passing.stdout, /test:unit passed, test:integration passed\n/)
})
