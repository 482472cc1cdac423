// Small helpers shared by the benchmark scripts.
import { execFile, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export function commandExists (command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0
}

/** server/shared/free-port.ts's twin: bench/ is plain JavaScript that Node runs without a TypeScript loader. */
export function freePort () {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

export function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2)
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000 }

function durationMs (text) {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text)
  if (match === null) throw new Error(`wrk: unreadable duration ${text}`)
  return Number(match[1]) * UNIT_MS[match[2]]
}

/**
 * Runs wrk (one thread) against `url` and reads requests/s and the latency
 * percentiles from its --latency output. Non-2xx answers count as errors.
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
    const percentileMs = (label) => durationMs(new RegExp(`^\\s*${label}%\\s+(\\S+)`, 'm').exec(stdout)[1])
    const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
    return {
      requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)[1]),
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
 * `logFile`: where the log goes, kept for the caller (a temporary file
 * otherwise); `nodeArgs`: options for node before the script.
 */
export async function startEdge (env, { logFile, nodeArgs = [] } = {}) {
  const port = await freePort()
  const folder = logFile === undefined ? mkdtempSync(join(tmpdir(), 'threshold-edge-log-')) : null
  const logPath = logFile ?? join(folder, 'edge.log')
  const log = openSync(logPath, 'w')
  const started = Date.now()
  const child = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL('../dist/server/main.js', import.meta.url))], {
    // BREACHED_PASSWORDS off: a benchmark must not send a burst of range calls to the public API (docs/breached-passwords.md).
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', BREACHED_PASSWORDS: 'off', ...env },
    stdio: ['ignore', log, 'inherit']
  })
  closeSync(log)
  const running = () => child.exitCode === null && child.signalCode === null
  const deadline = Date.now() + 15_000
  let listeningAt
  let compileCache
  while (compileCache === undefined) {
    if (!running()) throw new Error(`the server exited with ${child.exitCode ?? child.signalCode}`)
    if (Date.now() > deadline) throw new Error('the server did not start within 15 s')
    const lines = readFileSync(logPath, 'utf8').split('\n')
    const listening = lines.find((candidate) => candidate.includes('Server listening at'))
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
    pid: child.pid,
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
 * Starts one of the bench's helper servers (load-upstream.mjs,
 * plain-node-server.mjs) in a process of its own, so that it does not compete
 * with this process's event loop. `input`, when given, is written to its stdin.
 * Resolves with the URL it prints and a stop function.
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
