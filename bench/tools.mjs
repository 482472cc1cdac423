// Small helpers shared by the benchmark scripts.
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** This checkout: the one whose build the benchmarks run unless told another. */
const THIS_CHECKOUT = fileURLToPath(new URL('../', import.meta.url))

/** Whether this process runs as root (process.getuid is POSIX only). */
export const isRoot = () => process.getuid?.() === 0

/** @param {string} command */
export function commandExists (command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0
}

/**
 * The port a listening server was given (a TCP one: its address is an object, not a pipe's path).
 * @param {import('node:net').Server} server
 */
export function portOf (server) {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error(`not listening on a TCP port: ${address}`)
  return address.port
}

/**
 * server/shared/free-port.ts's twin: bench/ is plain JavaScript that Node runs without a TypeScript loader.
 * @returns {Promise<number>}
 */
export function freePort () {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const port = portOf(probe)
      probe.close(() => resolve(port))
    })
  })
}

/**
 * The middle value (the mean of the two middle ones, rounded, for an even count); NaN for none.
 * @param {readonly number[]} values
 * @returns {number}
 */
export function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const at = (/** @type {number} */ index) => sorted[index] ?? Number.NaN
  return sorted.length % 2 === 1 ? at(middle) : Math.round((at(middle - 1) + at(middle)) / 2)
}

/** @type {Record<string, number>} */
const UNIT_MS = { us: 0.001, ms: 1, s: 1000 }

/** @param {string} text */
function durationMs (text) {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text)
  if (match === null) throw new Error(`wrk: unreadable duration ${text}`)
  return Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN)
}

/**
 * The first group of `pattern` in wrk's output; an output without it is not wrk's report.
 * @param {RegExp} pattern
 * @param {string} stdout
 */
function wrkField (pattern, stdout) {
  const value = pattern.exec(stdout)?.[1]
  if (value === undefined) throw new Error(`wrk: no ${pattern.source} in its output`)
  return value
}

/**
 * Runs wrk (one thread) against `url` and reads requests/s and the latency
 * percentiles from its --latency output. Non-2xx answers count as errors.
 * @param {{ url: string, durationSeconds: number, connections: number, headers?: Record<string, string>, method?: string, body?: string }} options
 */
export async function runWrk ({ url, durationSeconds, connections, headers = {}, method = 'GET', body }) {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-wrk-'))
  const script = join(folder, 'request.lua')
  writeFileSync(script, [
    `wrk.method = ${JSON.stringify(method)}`,
    body === undefined ? '' : `wrk.body = ${JSON.stringify(body)}`,
    ...Object.entries(headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
    'local errors = 0',
    'function response (status) if status >= 400 then errors = errors + 1 end end',
    'function done () io.write(string.format("\\nhttp-errors: %d\\n", errors)) end'
  ].join('\n'))
  try {
    const { stdout } = await promisify(execFile)('wrk', ['-t1', `-c${connections}`, `-d${durationSeconds}s`, '--latency', '-s', script, url],
      { maxBuffer: 1 << 20 })
    const percentileMs = (/** @type {string} */ label) => durationMs(wrkField(new RegExp(`^\\s*${label}%\\s+(\\S+)`, 'm'), stdout))
    const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
    return {
      requestsPerSecond: Number(wrkField(/Requests\/sec:\s+([\d.]+)/, stdout)),
      p50Ms: percentileMs('50'),
      p99Ms: percentileMs('99'),
      httpErrors: Number(/http-errors: (\d+)/.exec(stdout)?.[1] ?? 0),
      socketErrors: socketErrors === null ? 0 : socketErrors.slice(1).map(Number).reduce((a, b) => a + b, 0)
    }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/**
 * Starts the built server, its log written to a file (the edge logs every
 * proxied call: reading that through a pipe would busy this process during the
 * measurements). Resolves once it listens, with its base URL and the time from
 * spawn to its "listening" log line, as stamped by the server itself.
 * `env` overrides the defaults below; a variable set to undefined is left
 * unset (the server's own default). `logFile`: where the log goes, kept for the
 * caller (a temporary file otherwise); `nodeArgs`: options for node before the
 * script; `checkout`: the repository whose dist/ runs (this one by default);
 * `port`: the port to listen on (a free one by default).
 * @param {Record<string, string | undefined>} env
 * @param {{ logFile?: string, nodeArgs?: string[], checkout?: string, port?: number }} [options]
 */
export async function startEdge (env, { logFile, nodeArgs = [], checkout = THIS_CHECKOUT, port } = {}) {
  port ??= await freePort()
  const folder = logFile === undefined ? mkdtempSync(join(tmpdir(), 'threshold-edge-log-')) : null
  const logPath = logFile ?? join(/** @type {string} */ (folder), 'edge.log')
  const log = openSync(logPath, 'w')
  const started = Date.now()
  const child = spawn(process.execPath, [...nodeArgs, join(checkout, 'dist/server/main.js')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // The breached-password check off unless the caller names a range server of its own: a benchmark
      // must not send a burst of range calls to the public API (docs/breached-passwords.md).
      ...(env.BREACHED_PASSWORDS_URL === undefined ? { BREACHED_PASSWORDS: 'off' } : {}),
      ...env
    },
    stdio: ['ignore', log, 'inherit']
  })
  closeSync(log)
  const running = () => child.exitCode === null && child.signalCode === null
  const deadline = Date.now() + 15_000
  /** @type {number} */
  let listeningAt = Number.NaN
  /** @type {string | undefined} */
  let compileCache
  while (compileCache === undefined) {
    if (!running()) throw new Error(`the server exited with ${child.exitCode ?? child.signalCode}`)
    if (Date.now() > deadline) {
      // Not left running behind the failed benchmark (it stops its embedded service as it goes).
      child.kill('SIGTERM')
      throw new Error('the server did not start within 15 s')
    }
    const lines = readFileSync(logPath, 'utf8').split('\n')
    // The edge's line: with the embedded service, the reference process's own comes first (the edge listens once it is ready).
    const listening = lines.find((candidate) => candidate.includes('Server listening at') && !candidate.includes('"service":"reference"'))
    // The edge's own line right after listening says whether Node's compile cache was on.
    const startedLine = lines.find((candidate) => candidate.includes('"msg":"started"'))
    if (listening === undefined || startedLine === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 5))
    } else {
      listeningAt = JSON.parse(listening).time
      compileCache = JSON.parse(startedLine).compileCache
    }
  }
  return {
    base: `http://127.0.0.1:${port}`,
    startMs: listeningAt - started,
    compileCache,
    // Listening, so spawned: a process id.
    pid: /** @type {number} */ (child.pid),
    running,
    exit: () => `${child.exitCode ?? child.signalCode}`,
    async stop () {
      if (running()) {
        child.kill('SIGTERM')
        await once(child, 'exit')
      }
      if (folder !== null) rmSync(folder, { recursive: true, force: true })
    }
  }
}

/**
 * The built server of `checkout` (this one by default; built first when its
 * dist/ is stale) with its embedded reference service and a fresh DATA_DIR,
 * removed at stop, as the login benchmarks run it: on the product's defaults
 * (the per-address limit included) except that TRUST_PROXY=loopback lets the
 * script name each request's client in X-Forwarded-For, and `env`. The page's
 * address is localhost (a secure context); `base` is the loopback address the
 * script calls. Resolves once /readyz answers, the embedded service included.
 * @param {Record<string, string | undefined>} [env]
 * @param {{ checkout?: string }} [options]
 */
export async function startSigninServer (env = {}, { checkout = THIS_CHECKOUT } = {}) {
  execFileSync(process.execPath, [join(checkout, 'build.mjs'), '--if-stale'], { stdio: 'inherit', cwd: checkout })
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'threshold-bench-data-'))
  const edge = await startEdge({
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://localhost:${port}`,
    ALLOWED_HOSTS: 'localhost,127.0.0.1',
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_PER_MINUTE: undefined,
    ...env
  }, { checkout, port }).catch((error) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  const stop = async () => {
    await edge.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  const deadline = Date.now() + 20_000
  for (;;) {
    const failure = !edge.running() ? `exited with ${edge.exit()}` : Date.now() > deadline ? 'was not ready within 20 s' : null
    if (failure !== null) {
      await stop()
      throw new Error(`the server in ${checkout} ${failure}`)
    }
    try {
      if ((await fetch(`${edge.base}/readyz`)).ok) break
    } catch {
      // not answering yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { ...edge, dataDir, stop }
}

/**
 * Starts one of the bench's helper servers (servers/load-upstream.mjs,
 * servers/plain-node-server.mjs) in a process of its own, so that it does not compete
 * with this process's event loop. `input`, when given, is written to its stdin.
 * Resolves with the URL it prints and a stop function.
 * @param {string} script
 * @param {string} [input]
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startHelperServer (script, input) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] })
  child.stdin.end(input)
  const [line] = await once(createInterface({ input: child.stdout }), 'line')
  return {
    url: JSON.parse(line).url,
    async stop () {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
  }
}

/** @typedef {{ child: import('node:child_process').ChildProcess, stop: (signal?: NodeJS.Signals) => Promise<void> }} RunningServer */

/**
 * Spawns a server whose output is appended to `logFile` and resolves once
 * what it wrote there matches `ready`; rejects with its last lines when it
 * exits first or takes longer than `timeoutMs`.
 * @param {string} command
 * @param {string[]} args
 * @param {{ ready: RegExp, timeoutMs: number, logFile: string, cwd?: string }} options
 * @returns {Promise<RunningServer>}
 */
export async function spawnUntilReady (command, args, { ready, timeoutMs, logFile, cwd }) {
  const before = existsSync(logFile) ? readFileSync(logFile, 'utf8').length : 0
  const log = openSync(logFile, 'a')
  const child = spawn(command, args, { stdio: ['ignore', log, log], cwd })
  closeSync(log)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const text = readFileSync(logFile, 'utf8').slice(before)
    if (ready.test(text)) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${command} did not start: ${text.trim().split('\n').slice(-5).join('\n')}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    child,
    async stop (signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      // A frozen process acts on the signal only once continued.
      child.kill('SIGCONT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
}
