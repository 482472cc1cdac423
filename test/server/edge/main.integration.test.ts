import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { jsonAnswer, startUpstream } from '../../fixtures/servers/edge.js'

const MAIN = fileURLToPath(new URL('../../../dist/server/main.js', import.meta.url))

interface Started {
  readonly child: ChildProcess
  readonly base: string
  readonly exit: Promise<{ code: number | null, stdout: string, stderr: string }>
}

function run (env: Record<string, string>): { child: ChildProcess, exit: Promise<{ code: number | null, stdout: string, stderr: string }> } {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  // 'close', not 'exit': the process can exit before its last output has been read.
  const exit = once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }))
  return { child, exit }
}

/** Starts the built server and waits for its "listening" log line. */
async function start (t: import('tap').Test, env: Record<string, string>): Promise<Started> {
  // No drain unless a test asks: nothing is in front of these servers (main-restart.integration.test.ts tests the drain).
  const { child, exit } = run({ HOST: '127.0.0.1', PORT: '0', DRAIN_SECONDS: '0', ...env })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const base = await new Promise<string>((resolve, reject) => {
    let seen = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(seen)
      if (match !== null) resolve(match[1]!)
    })
    void exit.then((result) => reject(new Error(`exited early: ${result.stderr}`)))
  })
  return { child, base, exit }
}

const badConfigurations: Array<[Record<string, string>, RegExp]> = [
  [{ PORT: 'abc' }, /^threshold: invalid configuration: PORT must be a whole number from 0 to 65535 \(got "abc"\)$/],
  [{ ACCOUNTS_URL: 'not-a-url' }, /^threshold: invalid configuration: ACCOUNTS_URL must be an absolute http or https URL \(got "not-a-url"\)$/],
  [{ TRUST_PROXY: 'yes' }, /^threshold: invalid configuration: TRUST_PROXY must be/],
  [{ PUBLIC_URL: 'localhost:8080' }, /^threshold: invalid configuration: PUBLIC_URL must use http or https/],
  [{ ALLOWED_HOSTS: 'signin.example.com:443' }, /^threshold: invalid configuration: ALLOWED_HOSTS must be a comma-separated list of host names or IP addresses, without a port \(got "signin.example.com:443"\)$/],
  [{ REDIS_URL: 'http://:s3cret@cache.internal' }, /^threshold: invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL such as redis:\/\/redis.internal:6379 \(value not shown: it may hold a password\)$/],
  [{ METRICS_PORT: 'nine' }, /^threshold: invalid configuration: METRICS_PORT must be a whole number from 0 to 65535 \(got "nine"\)$/],
  [{ METRICS_PORT: '9123', PORT: '9123' }, /^threshold: invalid configuration: METRICS_PORT must differ from PORT: the metrics are never served on the public port \(got "9123"\)$/],
  [{ DRAIN_SECONDS: '10s' }, /^threshold: invalid configuration: DRAIN_SECONDS must be a whole number from 0 to 300 \(got "10s"\)$/],
  [{ DATABASE_URL: 'mysql://app:s3cret@db.internal/app' }, /^threshold: invalid configuration: DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL such as postgres:\/\/threshold:secret@db.internal:5432\/threshold \(value not shown: it may hold a password\)$/],
  // The reference service's clients are checked before it is forked: the entry and the field are named, never the secret.
  [{ OIDC_CLIENTS: JSON.stringify([{ client_id: 'app', client_name: 'App', redirect_uris: ['https://app.example.com/cb'], client_secret: 'short-s3cret' }]) },
    /^threshold: invalid configuration: OIDC_CLIENTS\[0\]\.client_secret: must have at least 32 characters$/],
  [{ OIDC_CLIENTS: JSON.stringify([{ client_id: 'cli', client_name: 'CLI', redirect_uris: ['http://localhost:53682/'], token_endpoint_auth_method: 'none' },
    { client_id: 'web', client_name: 'Web', redirect_uris: ['http://web.example.com/cb'], token_endpoint_auth_method: 'none' }]) },
  /^threshold: invalid configuration: OIDC_CLIENTS\[1\]\.redirect_uris\[0\]: must be https \(plain http is allowed only for loopback hosts\)$/]
]

for (const [env, message] of badConfigurations) {
  t.test(`${Object.keys(env)[0]} with a bad value stops the server with one line and exit code 1`, async (t) => {
    const { exit } = run(env)
    const { code, stdout, stderr } = await exit
    t.equal(code, 1)
    const lines = stderr.trim().split('\n')
    t.equal(lines.length, 1, 'one line')
    t.match(lines[0], message)
    t.equal(stdout, '', 'nothing starts')
  })
}

t.test('a METRICS_PORT another process holds stops the start with one line naming it, and exit code 1', async (t) => {
  const holder = createServer().listen(0, '127.0.0.1')
  await once(holder, 'listening')
  t.teardown(() => holder.close())
  const port = (holder.address() as AddressInfo).port
  const backend = await startUpstream(t, jsonAnswer(200, {}))
  const { code, stdout, stderr } = await run({
    HOST: '127.0.0.1', PORT: '0', METRICS_PORT: String(port), ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url, PUBLIC_URL: 'https://signin.example.test'
  }).exit
  t.equal(code, 1)
  t.same(stderr.trim().split('\n'), [`threshold: invalid configuration: METRICS_PORT is taken on 127.0.0.1: another process listens on port ${port}`])
  t.notMatch(stdout, /Server listening/, 'the page is never served')
})

t.test('with METRICS_PORT the built server serves /metrics there, with its build, and not on the public port', async (t) => {
  const holder = createServer().listen(0, '127.0.0.1')
  await once(holder, 'listening')
  const metricsPort = (holder.address() as AddressInfo).port
  await new Promise((resolve) => holder.close(resolve))
  const backend = await startUpstream(t, jsonAnswer(200, {}))
  const { child, base } = await start(t, { METRICS_PORT: String(metricsPort), ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url, ALLOWED_HOSTS: '127.0.0.1' })
  t.equal((await fetch(`${base}/`)).status, 200)
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  t.match(text, new RegExp(`^threshold_build_info\\{version="${version.replace(/\./g, '\\.')}",node="${process.version}",accounts_api="[\\d.]+"\\} 1$`, 'm'))
  t.match(text, /^threshold_http_requests_total\{route="page",method="GET",status="200"\} 1$/m, 'the page, counted on the hot path')
  t.match(text, /^process_resident_memory_bytes \d+/m)
  t.equal((await fetch(`${base}/metrics`)).status, 404, 'not on the public port')
  child.kill('SIGTERM')
})

t.test('SIGTERM after the drain lets requests in flight finish, refuses new connections and exits 0', async (t) => {
  const upstream = await startUpstream(t, (recorded, response) => {
    setTimeout(() => jsonAnswer(200, { auth: 'a', refresh: 'r' })(recorded, response), 1500)
  })
  const { child, base, exit } = await start(t, { ACCOUNTS_URL: upstream.url, EDGE_AUTH_URL: upstream.url })

  const inFlight = fetch(`${base}/accounts/v2/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}'
  })
  while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
  const signalledAt = Date.now()
  child.kill('SIGTERM')
  await new Promise((resolve) => setTimeout(resolve, 300))

  const refused = await new Promise<string>((resolve) => {
    const attempt = request(`${base}/healthz`, { agent: false }, (response) => resolve(`answered ${response.statusCode}`))
    attempt.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    attempt.end()
  })
  t.equal(refused, 'ECONNREFUSED', 'a new connection is refused once stopping')

  const response = await inFlight
  t.equal(response.status, 200, 'the request in flight completed')
  t.same(await response.json(), { auth: 'a', refresh: 'r' })
  const { code, stdout } = await exit
  t.equal(code, 0)
  t.ok(Date.now() - signalledAt < 10_000, 'within 10 seconds')
  // The lines of the last moments before exit must still reach the log.
  const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as { msg: string, req?: { url: string } })
  t.ok(lines.some((line) => line.msg === 'request completed' && line.req?.url === '/accounts/v2/login'), 'the request in flight was logged')
  t.ok(lines.some((line) => line.msg === 'stopped'), 'the line written just before exit reached the log')
})

t.test('the built server starts from the compile cache the build filled, and says so with its start time', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  // Node's own account of the cache, on standard error: whether V8 took what it read for the edge's bundle.
  const { child, exit } = await start(t, { ACCOUNTS_URL: upstream.url, EDGE_AUTH_URL: upstream.url, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' })
  child.kill('SIGTERM')
  const { stdout, stderr } = await exit
  const started = stdout.trim().split('\n').map((line) => JSON.parse(line) as { msg: string, startMs?: number, compileCache?: string, node?: string, accountsApi?: string })
    .find((line) => line.msg === 'started')
  t.equal(started?.compileCache, 'ENABLED')
  t.match(stderr, /V8 code cache for CommonJS \S*\/dist\/server\/edge\.cjs was accepted/, 'V8 took the cached edge')
  t.equal(started?.node, process.version, 'the log names the Node it runs on')
  t.match(started?.accountsApi, /^\d+\.\d+\.\d+$/, 'and the version of the accounts contract it speaks')
  t.type(started?.startMs, 'number')
  t.ok(started!.startMs! > 0 && started!.startMs! < 15_000, `started in ${started?.startMs} ms`)
})

t.test('without a usable cache the built server compiles the edge from source and starts all the same', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const { child, base, exit } = await start(t, { ACCOUNTS_URL: upstream.url, EDGE_AUTH_URL: upstream.url, NODE_DISABLE_COMPILE_CACHE: '1' })
  t.equal((await fetch(`${base}/healthz`)).status, 200)
  child.kill('SIGTERM')
  const { code, stdout } = await exit
  t.equal(code, 0)
  t.match(stdout, /"compileCache":"DISABLED"/)
})

t.test('without ALLOWED_HOSTS or PUBLIC_URL the start warns that any Host is accepted; with PUBLIC_URL it does not', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const warningsOf = async (env: Record<string, string>): Promise<string[]> => {
    const { child, exit } = await start(t, { ACCOUNTS_URL: upstream.url, EDGE_AUTH_URL: upstream.url, ...env })
    child.kill('SIGTERM')
    const { stdout } = await exit
    return stdout.trim().split('\n').map((line) => JSON.parse(line) as { level: number, msg: string })
      .filter((line) => line.level === 40).map((line) => line.msg)
  }
  t.match(await warningsOf({}), [/^neither ALLOWED_HOSTS nor PUBLIC_URL is set: any Host is accepted/])
  t.same(await warningsOf({ PUBLIC_URL: 'https://signin.example.com' }), [])
})

t.test('SIGINT stops an idle server at once', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const { child, exit } = await start(t, { ACCOUNTS_URL: upstream.url, EDGE_AUTH_URL: upstream.url })
  const signalledAt = Date.now()
  child.kill('SIGINT')
  t.equal((await exit).code, 0)
  t.ok(Date.now() - signalledAt < 2000)
})
