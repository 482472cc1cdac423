// The suite's two tiers (docs/development.md): unit and inject tests, which
// need no build, no browser and no database server and run four files at a
// time (npm run test:quick runs only these); and integration tests, which
// need one of those and run two at a time, as more starve Chromium and the
// built servers on two cores. Both run through build/test-runner/run-tier.mjs,
// which runs fewer at a time on a busy machine. npm test runs both, the second
// even when the first failed. A test's tier shows in its name: test/e2e/ and
// *.integration.test.ts are integration tests, the rest unit tests. The tiers
// must split the suite exactly, and no unit test may reach for what only the
// other tier has.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const scripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts
const TAP = `${ROOT}node_modules/.bin/tap`

/** This process's environment without the tap runner's own variables, which would carry the running tier's options into `tap list`. */
const PLAIN_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TAP|_TAP)/.test(name)))

/** The test files a tier's script (or plain `tap`) runs, by asking tap itself (`tap list` with the arguments run-tier.mjs hands tap). */
function filesOf (script: string): string[] {
  const args = script.replace(/^node build\/test-runner\/run-tier\.mjs \S+ --jobs \d+\s*/, '').replace(/^tap\b\s*/, '')
  return execFileSync('sh', ['-c', `"${TAP}" list ${args}`], { cwd: ROOT, encoding: 'utf8', env: PLAIN_ENV })
    .trim().split('\n').filter(Boolean).sort()
}

const unit = filesOf(scripts['test:unit']!)
const integration = filesOf(scripts['test:integration']!)
const all = filesOf('tap')

// A type error or a lint error stops npm test before the tiers (a minute, not twelve); a failed
// unit tier does not stop the integration tier (build/test-runner/run-tiers.mjs, tested beside it).
t.test('npm test runs the type check, the lint, the build and then both tiers whatever the first gave; test:quick the type check, the lint and the unit tier', async (t) => {
  t.equal(scripts.test, 'npm run typecheck && npm run lint && node build.mjs && node build/test-runner/run-tiers.mjs test:unit test:integration')
  t.equal(scripts['test:quick'], 'npm run typecheck && npm run lint && npm run test:unit')
})

t.test('each tier is named by two globs, not by a list of files, and run paced to the machine', async (t) => {
  t.equal(scripts['test:unit'], "node build/test-runner/run-tier.mjs unit --jobs 4 --exclude='test/fixtures/**' --exclude='test/e2e/**' --exclude='test/**/*.integration.test.ts'")
  t.equal(scripts['test:integration'], "node build/test-runner/run-tier.mjs integration --jobs 2 'test/e2e/**/*.test.ts' 'test/**/*.integration.test.ts'")
  t.same(integration.filter((file) => !file.startsWith('test/e2e/') && !file.endsWith('.integration.test.ts')), [], 'every integration test says so by its folder or name')
})

t.test('every test file is in exactly one tier', async (t) => {
  t.same([...unit, ...integration].sort(), all, 'together they are the whole suite')
  // tap also takes any file in a folder named test or tests, wherever it is: the suite's are all in test/.
  t.same(all.filter((file) => !file.startsWith('test/')), [], 'tap finds no test file outside test/')
  t.same(unit.filter((file) => integration.includes(file)), [], 'no file runs twice')
  t.ok(unit.length > 20 && integration.length > 10, `${unit.length} unit files, ${integration.length} integration files`)
})

// Shallow: it reads each unit test file itself, not the fixtures it imports (the edge fixture names
// dist/public and falls back to a stand-in page). A unit test that needs the build through a fixture
// fails in `npm run test:quick` without dist/, which is how it would be found.
t.test('no unit test needs the build, a browser or a database server', async (t) => {
  // A string that starts with a path into the build (dist/, after any ../), or a fixture that starts a browser or a database.
  const needs = [/['"`](\.\.\/)*dist\//, /fixtures\/browsers\/chromium/, /fixtures\/servers\/built-server/, /fixtures\/servers\/postgres-server/, /fixtures\/servers\/redis-server/]
  for (const file of unit) {
    const text = readFileSync(`${ROOT}${file}`, 'utf8')
    t.same(needs.filter((pattern) => pattern.test(text)).map(String), [], file)
  }
})
