// Logins per second of the embedded accounts service against the password
// hash's floor, measured side by side in one run (npm run bench, its "Logins"
// section; `node bench/run.mjs --logins-only` runs only this part).
//
// - The floor: the cores the service hashes on at once (hash-gate.ts's rule:
//   the available parallelism, at most libuv's pool) ÷ the time of one scrypt at
//   the service's default cost, made in this process by the very function the
//   service hashes with (server/reference/passwords/passwords.ts, which Node runs
//   as it is: it only strips the types) while the server is idle.
// - The logins: the built server as in production (bench/tools.mjs's
//   startSigninServer: the edge with its embedded service, the default hash
//   cost, a fresh DATA_DIR), called through the edge as the page calls it, since
//   that is the capacity a visitor meets; each account's own address (an IPv6
//   /64 of its own, stated in X-Forwarded-For), so that no per-address limit
//   holds the load back. Accounts are registered first, through the same calls.
// - Rounds: a fresh timing of the hash, then logins for a few seconds with
//   enough of them in flight to keep every hashing slot busy and one waiting
//   behind each (more would only queue, and past the gate's wait be shed).
//   The ratio is the median of the rounds' ratios, each against the hash timed
//   just before it.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { median, startSigninServer } from '../tools.mjs'

/** @typedef {{ hashMs: number, hashCpuMs: number, parallelMs: number, parallelPerSecond: number, parallelRatio: number, loginsPerSecond: number, floorPerSecond: number, ratio: number, statuses: Record<string, number>, p50Ms: number, cpuPerLoginMs: { service: number, edge: number, client: number } }} LoginRound */

const PASSWORD = 'correct horse battery staple'
/** Hashes timed per round: the median of three is steadier than one. */
const HASH_SAMPLES = 3
/** /proc's unit of CPU time (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100

/** libuv's pool (hash-gate.ts's threadPoolSize): the server runs with this process's UV_THREADPOOL_SIZE, if any. */
function threadPoolSize () {
  const size = Number(process.env.UV_THREADPOOL_SIZE)
  return Number.isInteger(size) && size > 0 ? Math.min(size, 1024) : 4
}

/**
 * The service's own hash function: passwords.ts imports nothing but node:crypto, so Node runs it without a build.
 * @returns {Promise<{ hashPassword: (password: string) => Promise<string> }>}
 */
async function serviceHash () {
  return await import(new URL('../../server/reference/passwords/passwords.ts', import.meta.url).href)
}

/**
 * One POST of JSON as the page sends it, from `address`.
 * @param {string} base
 * @param {string} path
 * @param {object} body
 * @param {string} address
 */
async function post (base, path, body, address) {
  const started = performance.now()
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, 'x-forwarded-for': address },
    body: JSON.stringify(body)
  })
  await response.arrayBuffer()
  return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started }
}

/** @param {number} index */
const accountOf = (index) => ({ email: `bench-${index}@example.com`, address: `2001:db8:${(index + 1).toString(16)}::1` })

/**
 * CPU time (user and system, all threads) a process has used, in ms, from /proc (Linux); NaN elsewhere.
 * @param {number} pid
 */
function cpuMsOf (pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * 1000 / CLOCK_TICKS_PER_SECOND
  } catch {
    return Number.NaN
  }
}

/**
 * The embedded service's process: the edge's one child.
 * @param {number} edgePid
 */
function childOf (edgePid) {
  const found = spawnSync('pgrep', ['-P', String(edgePid)], { encoding: 'utf8' })
  return Number(found.stdout.trim().split('\n')[0])
}

/**
 * @param {{ rounds: number, durationSeconds: number, log?: (line: string) => void }} options
 */
export async function measureLogins ({ rounds, durationSeconds, log = () => {} }) {
  const cores = Math.max(1, Math.min(availableParallelism(), threadPoolSize()))
  // Each slot busy and its next turn queued (the gate always admits that much: hash-gate.ts); the gap between
  // one login's answer and its client's next call is then never a slot's idle time.
  const inFlight = cores * 2
  const accounts = Array.from({ length: inFlight * 2 }, (_, index) => accountOf(index))
  const { hashPassword } = await serviceHash()
  /** One scrypt's time (the median of a few, one after another), and its CPU time. */
  const timeHash = async () => {
    /** @type {number[]} */
    const samples = []
    const cpuBefore = process.cpuUsage()
    for (let sample = 0; sample < HASH_SAMPLES; sample++) {
      const started = performance.now()
      await hashPassword(PASSWORD)
      samples.push(performance.now() - started)
    }
    const cpu = process.cpuUsage(cpuBefore)
    // And as many at once as the service runs: what the machine hashes when every slot is busy.
    const started = performance.now()
    await Promise.all(Array.from({ length: cores }, async () => await hashPassword(PASSWORD)))
    return { hashMs: median(samples), hashCpuMs: (cpu.user + cpu.system) / 1000 / HASH_SAMPLES, parallelMs: performance.now() - started }
  }
  // The challenge off: on a starved machine the registrations' retries after 503 and 504 raised it (428),
  // and solving proofs of work is not what this measures (bench/credential-stuffing.mjs does).
  const server = await startSigninServer({ CHALLENGE: 'off' })
  const servicePid = childOf(server.pid)
  try {
    log(`bench: registering ${accounts.length} accounts`)
    for (let next = 0; next < accounts.length; next += cores) {
      await Promise.all(accounts.slice(next, next + cores).map(async ({ email, address }) => {
        for (;;) {
          const answer = await post(server.base, '/accounts/register', { email, password: PASSWORD, confirm_password: PASSWORD }, address)
          if (answer.status === 200) return
          // Busy, or slower than the edge's wait on a starved machine: again (an address already taken answers as a new one does).
          if (answer.status !== 503 && answer.status !== 504) throw new Error(`bench: registering ${email} answered ${answer.status}`)
          await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.retryAfter ?? 1)))
        }
      }))
    }
    /**
     * Logins for `seconds`, `inFlight` at a time, each client taking the next account in turn. The rate
     * counts the logins answered from the first answer to the end (before it, the slots were filling).
     * @param {number} seconds
     */
    const drive = async (seconds) => {
      /** @type {Record<string, number>} */
      const statuses = {}
      /** @type {number[]} */
      const times = []
      /** @type {number[]} */
      const signedInAt = []
      let turn = 0
      let firstAnswerAt = Number.NaN
      const cpuBefore = { edge: cpuMsOf(server.pid), service: cpuMsOf(servicePid), client: process.cpuUsage() }
      const until = performance.now() + seconds * 1000
      await Promise.all(Array.from({ length: inFlight }, async () => {
        while (performance.now() < until) {
          const account = /** @type {{ email: string, address: string }} */ (accounts[turn++ % accounts.length])
          const answer = await post(server.base, '/accounts/v2/login', { email: account.email, password: PASSWORD }, account.address)
          const at = performance.now()
          if (Number.isNaN(firstAnswerAt)) firstAnswerAt = at
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
          if (answer.status === 200) {
            signedInAt.push(at)
            times.push(answer.ms)
          } else if (answer.retryAfter !== null) {
            await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.retryAfter)))
          }
        }
      }))
      const client = process.cpuUsage(cpuBefore.client)
      const answered = signedInAt.length
      const inWindow = signedInAt.filter((at) => at > firstAnswerAt && at <= until).length
      return {
        loginsPerSecond: inWindow / ((until - firstAnswerAt) / 1000),
        statuses,
        p50Ms: median(times),
        cpuPerLoginMs: {
          service: (cpuMsOf(servicePid) - cpuBefore.service) / answered,
          edge: (cpuMsOf(server.pid) - cpuBefore.edge) / answered,
          client: (client.user + client.system) / 1000 / answered
        }
      }
    }
    log('bench: logins against the hash\'s floor')
    await drive(2)
    /** @type {LoginRound[]} */
    const results = []
    for (let round = 0; round < rounds; round++) {
      const { hashMs, hashCpuMs, parallelMs } = await timeHash()
      // At least ten hashes per slot, so that the first answer's wait is a small part of the round.
      const measured = await drive(Math.max(durationSeconds, 10 * hashMs / 1000))
      const floorPerSecond = cores / (hashMs / 1000)
      const parallelPerSecond = cores / (parallelMs / 1000)
      results.push({
        hashMs, hashCpuMs, floorPerSecond, ratio: measured.loginsPerSecond / floorPerSecond,
        parallelMs, parallelPerSecond, parallelRatio: measured.loginsPerSecond / parallelPerSecond, ...measured
      })
    }
    return { cores, inFlight, accounts: accounts.length, rounds: results }
  } finally {
    await server.stop()
  }
}

/**
 * The report's section.
 * @param {Awaited<ReturnType<typeof measureLogins>>} measured
 */
export function loginsReport ({ cores, inFlight, accounts, rounds }) {
  const middle = (/** @type {number[]} */ values) => {
    const sorted = [...values].sort((a, b) => a - b)
    const half = sorted.length >> 1
    return sorted.length % 2 === 1 ? /** @type {number} */ (sorted[half]) : (/** @type {number} */ (sorted[half - 1]) + /** @type {number} */ (sorted[half])) / 2
  }
  const of = (/** @type {(round: LoginRound) => number} */ figure) => middle(rounds.map(figure))
  const rows = rounds.map((round, index) => `| ${index + 1} | ${Math.round(round.hashMs)} ms | ${round.floorPerSecond.toFixed(2)} | ` +
    `${Math.round(round.parallelMs)} ms | ${round.loginsPerSecond.toFixed(2)} | ${Math.round(round.p50Ms)} ms | ${round.ratio.toFixed(2)}× | ` +
    `${round.parallelRatio.toFixed(2)}× | ${JSON.stringify(round.statuses)} |`)
  const cpu = {
    hash: of((round) => round.hashCpuMs),
    service: of((round) => round.cpuPerLoginMs.service),
    edge: of((round) => round.cpuPerLoginMs.edge),
    client: of((round) => round.cpuPerLoginMs.client)
  }
  return `## Logins

Password logins of ${accounts} existing accounts through the edge (its embedded accounts service, the default
hash cost: scrypt N = 2^17), ${inFlight} at a time, against the hash's floor: ${cores} hashes at once (the hash gate's
slots) ÷ the time of one scrypt, timed with the service's own function in the benchmark process just before each round.

| round | one hash | floor (logins/s) | ${cores} hashes at once | logins/s | login p50 | ÷ floor | ÷ ${cores} at once | answers |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Logins reached **${of((round) => round.ratio).toFixed(2)}×** the hash's floor (median of the rounds; aim: at least 0.8×),
${of((round) => round.loginsPerSecond).toFixed(2)} logins/s against ${of((round) => round.floorPerSecond).toFixed(2)}. The floor assumes that ${cores} hashes at once
take as long as one; timed side by side, ${cores} at once took ${(of((round) => round.parallelMs / round.hashMs)).toFixed(2)}× one alone (a machine whose cores
are shared, or whose memory bandwidth two scrypts at 128 MiB each contend for, does not double), and against
what the machine hashed at once the logins reached **${of((round) => round.parallelRatio).toFixed(2)}×**.

Where a login's CPU goes (medians of the rounds' CPU time per login signed in, all threads): the service
${cpu.service.toFixed(0)} ms, of which one hash takes ${cpu.hash.toFixed(0)} ms alone (the rest, ${(cpu.service - cpu.hash).toFixed(0)} ms, is the
service's own work and the hash's slow-down beside another); the edge ${cpu.edge.toFixed(1)} ms; this benchmark's client
${cpu.client.toFixed(1)} ms. The hash's share of the CPU a login takes: ${(cpu.hash / (cpu.service + cpu.edge + cpu.client)).toFixed(2)}.
`
}
