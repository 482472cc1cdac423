// Small helpers shared by the benchmark scripts.
import { execFile, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export function commandExists (command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0
}

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

/** Starts the built server; resolves with its base URL and the time from spawn to its "listening" log line. */
export async function startEdge (env) {
  const port = await freePort()
  const started = Date.now()
  const child = spawn(process.execPath, [fileURLToPath(new URL('../dist/server/main.js', import.meta.url))], {
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const listeningAt = await new Promise((resolve, reject) => {
    let seen = ''
    // Removed once the line is seen: under load the server logs every proxied
    // call, and keeping (and re-splitting) it all would tie up this process.
    const watch = (chunk) => {
      seen += chunk
      const line = seen.split('\n').find((candidate) => candidate.includes('Server listening at'))
      if (line === undefined) return
      child.stdout.off('data', watch)
      resolve(JSON.parse(line).time)
    }
    child.stdout.on('data', watch)
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)))
  })
  child.stdout.resume()
  return {
    base: `http://127.0.0.1:${port}`,
    startMs: listeningAt - started,
    async stop () {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
  }
}

