import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { startBuiltServer } from '../fixtures/servers/built-server.js'

// `npm run conformance` as CI runs it: the built command, against the built server with its embedded accounts service.
const COMMAND = fileURLToPath(new URL('../../dist/conformance/main.js', import.meta.url))

function runCommand (args: string[], cwd?: string): Promise<{ status: number | null, stdout: string, stderr: string, ms: number }> {
  const started = Date.now()
  const child = spawn(process.execPath, [COMMAND, ...args], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd === undefined ? {} : { cwd }) })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr, ms: Date.now() - started })))
}

t.test('the built server\'s embedded accounts service passes the built check, through the edge', async (t) => {
  const server = await startBuiltServer(t, { RATE_LIMIT_PER_MINUTE: '1000' })
  // From another folder: the command finds the OpenAPI document beside itself, not in the working directory.
  const { status, stdout } = await runCommand(['--accounts-url', `${server.base}/accounts`, '--timeout-ms', '30000'], tmpdir())
  t.match(stdout, /The contract: answers are also checked against .*docs\/accounts-api\.openapi\.yaml/)
  t.match(stdout, /conformance PASSED: \d+ passed, 0 failed/)
  t.equal(status, 0, 'exit status 0')
})

t.test('the built command exits 1 when a row fails and 2 on a bad argument, and never hangs', async (t) => {
  const refused = await runCommand(['--accounts-url', 'http://127.0.0.1:9', '--timeout-ms', '2000'])
  t.equal(refused.status, 1)
  t.match(refused.stdout, /connection refused at 127\.0\.0\.1:9/)
  t.ok(refused.ms < 10_000, `done in ${refused.ms} ms`)
  const bad = await runCommand(['--accounts-url', 'http://127.0.0.1:9', '--timeout-ms', 'later'])
  t.equal(bad.status, 2)
  t.match(bad.stderr, /--timeout-ms must be a whole number/)
})
