// npm run load:stuffing: a credential-stuffing run against the built server
// with its embedded reference service (docs/challenge.md, "Measured: a credential-stuffing run").
//
//   node bench/credential-stuffing.mjs [--attempts N] [--addresses N] [--concurrency N] [--after-wait S] [--json]
//
// - The built server (dist/server/main.js, built first with `build.mjs
//   --if-stale`; bench/tools.mjs's startSigninServer) runs as in production with the challenge at its defaults
//   (CHALLENGE=pow, CHALLENGE_RANGE_FAILURES=10, CHALLENGE_ACCOUNT_FAILURES=5,
//   CHALLENGE_BURST_FAILURES=100), except: TRUST_PROXY=loopback, so that this
//   script names each request's client in X-Forwarded-For;
//   PASSWORD_HASH_COST=10 (fast hashing: the run measures the challenge, not
//   scrypt); the breached-password check on, as in production, but pointed at
//   a local range server that knows no password (BREACHED_PASSWORDS_URL):
//   nothing here ever calls the public internet.
// - 50 accounts are registered, each from an address of its own. The
//   attacker's list has N pairs (default 2,000): one in eight names one of
//   the accounts, the rest addresses this site never had; one pair in 200
//   (10) carries the account's right password. They are tried from M addresses (default
//   200: 50 /24 ranges of 4 addresses, as botnets and hosting ranges come),
//   C at a time (default 20). On a 428 the attacker solves the proof of work
//   in Node with altcha-lib (Node's PBKDF2, faster than a browser's), one
//   challenge at a time so that each time measured is the work itself, and
//   tries again with the solution.
// - An ordinary visitor, from a range of her own, signs in with her right
//   password before the attack, four times during it, and after it once the
//   burst has passed (S seconds, default 130).
// Printed: the attempts passed on before the first challenge, how many were
// challenged, the solving time per challenged attempt (median, p95, total
// CPU time), the logins that succeeded, the breached-password range calls,
// and the visitor's challenges and solving time. Figures only: nothing fails.
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { median, portOf, startSigninServer } from './tools.mjs'

/** @import { Challenge } from 'altcha-lib' */
/** @typedef {{ email: string, password: string }} Pair */
/** @typedef {{ status: number, challenged: boolean, solveMs: number, level: unknown }} LoginOutcome */
/** @typedef {{ header: string, ms: number, level: unknown }} Solved */

const option = (/** @type {string} */ name, /** @type {number} */ fallback) => {
  const index = process.argv.indexOf(name)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const ATTEMPTS = option('--attempts', 2000)
const ADDRESSES = option('--addresses', 200)
const CONCURRENCY = option('--concurrency', 20)
const AFTER_WAIT_S = option('--after-wait', 130)
const json = process.argv.includes('--json')

const ACCOUNTS = 50
const RIGHT_PAIRS = 10
const EMAIL = (/** @type {number} */ index) => `member${index}@example.com`
const PASSWORD = (/** @type {number} */ index) => `account ${index} long password`
const VISITOR = { email: 'visitor@example.org', password: 'the visitor\'s own long password' }
const VISITOR_ADDRESS = '192.0.2.10'
const HEADER = 'x-threshold-challenge'

/**
 * A range API that knows no password: every prefix answers padding lines only,
 * in the real format. `calls()`: how many it answered (the check was on).
 */
async function startEmptyRangeServer () {
  let calls = 0
  const server = createServer((_request, response) => {
    calls++
    const lines = Array.from({ length: 800 }, (_, index) => `${index.toString(16).toUpperCase().padStart(35, '0')}:0`)
    response.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${portOf(server)}/range/`, calls: () => calls, close: () => server.close() }
}

/**
 * @param {string} base
 * @param {string} path
 * @param {object} body
 * @param {string} address the client's, as X-Forwarded-For names it
 * @param {Record<string, string>} [headers]
 * @returns {Promise<{ status: number, answer: any }>}
 */
async function post (base, path, body, address, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, 'x-forwarded-for': address, ...headers },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  let answer = null
  try { answer = JSON.parse(text) } catch { /* not JSON */ }
  return { status: response.status, answer }
}

/**
 * Solves a 428's proof of work as an attacker would, in Node; the solution header and the time it took.
 * @param {Challenge} challenge
 * @returns {Promise<Solved>}
 */
async function solve (challenge) {
  const started = performance.now()
  const solution = await solveChallenge({ challenge, deriveKey, timeout: 120_000 })
  const ms = performance.now() - started
  return { header: Buffer.from(JSON.stringify({ challenge, solution })).toString('base64url'), ms, level: challenge.parameters.data?.level }
}

/**
 * The attacker's solver: one challenge at a time, so that each solving time
 * is the work itself rather than a share of the machine among many solvers
 * (a real attacker pays it in CPU time the same way).
 */
/** @type {Promise<unknown>} */
let solverQueue = Promise.resolve()
/** @param {Challenge} challenge */
function solveInTurn (challenge) {
  const solved = solverQueue.then(() => solve(challenge))
  solverQueue = solved.then(() => undefined, () => undefined)
  return solved
}

/**
 * One login as a client that solves challenges: its final status, whether it was challenged, the solving ms and level.
 * @param {string} base
 * @param {Pair} pair
 * @param {string} address
 * @param {(challenge: Challenge) => Promise<Solved>} [solver]
 * @returns {Promise<LoginOutcome>}
 */
async function loginSolving (base, pair, address, solver = solve) {
  const first = await post(base, '/accounts/v2/login', pair, address)
  if (first.status !== 428 || first.answer?.challenge?.kind !== 'pow') return { status: first.status, challenged: false, solveMs: 0, level: 0 }
  const solved = await solver(first.answer.challenge.challenge)
  const second = await post(base, '/accounts/v2/login', pair, address, { [HEADER]: solved.header })
  return { status: second.status, challenged: true, solveMs: solved.ms, level: solved.level }
}

const percentile = (/** @type {number[]} */ values, /** @type {number} */ p) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0
}
const round = (/** @type {number} */ value) => Math.round(value)

const rangeServer = await startEmptyRangeServer()
const server = await startSigninServer({ PASSWORD_HASH_COST: '10', BREACHED_PASSWORDS_URL: rangeServer.url })
try {
  const emails = Array.from({ length: ACCOUNTS }, (_, index) => EMAIL(index))
  for (const [index, email] of /** @type {Array<[number, string]>} */ ([...emails.entries(), [-1, VISITOR.email]])) {
    const password = index === -1 ? VISITOR.password : PASSWORD(index)
    const address = index === -1 ? VISITOR_ADDRESS : `100.64.${index}.1`
    const registered = await post(server.base, '/accounts/register', { email, password, confirm_password: password }, address)
    if (registered.status !== 200) throw new Error(`registering ${email} failed: ${registered.status} ${JSON.stringify(registered.answer)}`)
  }
  const before = await loginSolving(server.base, VISITOR, VISITOR_ADDRESS)

  // The leaked list: one pair in eight names an account here; RIGHT_PAIRS of those carry its password.
  /** @type {Pair[]} */
  const pairs = Array.from({ length: ATTEMPTS }, (_, index) => {
    if (index % 8 !== 0) return { email: `leaked${index}@example.net`, password: `leaked password ${index}` }
    const account = (index / 8) % ACCOUNTS
    const right = index % Math.floor(ATTEMPTS / RIGHT_PAIRS) === 0
    return { email: EMAIL(account), password: right ? PASSWORD(account) : `leaked password ${index}` }
  })
  const rightPairs = pairs.filter((pair) => emails.includes(pair.email) && pair.password === PASSWORD(emails.indexOf(pair.email))).length
  const addressOf = (/** @type {number} */ index) => {
    const slot = index % ADDRESSES
    return `198.18.${Math.floor(slot / 4)}.${10 + (slot % 4)}`
  }

  /** @type {Array<LoginOutcome & { endedMs: number }>} */
  const results = new Array(ATTEMPTS)
  let next = 0
  /** @type {number | null} */
  let firstChallengeAt = null
  /** @type {number | null} */
  let firstChallengeMs = null
  const started = performance.now()
  /** @type {LoginOutcome[]} */
  const visitorDuring = []
  const attack = Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < ATTEMPTS) {
      const index = next++
      const pair = pairs[index]
      if (pair === undefined) break
      const result = await loginSolving(server.base, pair, addressOf(index), solveInTurn)
      if (result.challenged && firstChallengeAt === null) {
        firstChallengeAt = index
        firstChallengeMs = performance.now() - started
      }
      results[index] = { ...result, endedMs: performance.now() - started }
    }
  }))
  const visitorDuringAttack = (async () => {
    for (const share of [0.2, 0.4, 0.6, 0.8]) {
      while (next < ATTEMPTS * share) await new Promise((resolve) => setTimeout(resolve, 50))
      visitorDuring.push(await loginSolving(server.base, VISITOR, VISITOR_ADDRESS))
    }
  })()
  await Promise.all([attack, visitorDuringAttack])
  const attackMs = performance.now() - started
  console.log(`attack over after ${round(attackMs / 1000)} s; waiting ${AFTER_WAIT_S} s for the burst to pass…`)
  await new Promise((resolve) => setTimeout(resolve, AFTER_WAIT_S * 1000))
  const after = await loginSolving(server.base, VISITOR, VISITOR_ADDRESS)

  const challenged = results.filter((result) => result.challenged)
  const solveMs = challenged.map((result) => result.solveMs)
  const passedBeforeChallenges = firstChallengeAt === null ? ATTEMPTS : results.slice(0, firstChallengeAt).filter((result) => !result.challenged).length
  /** @type {Record<string, number>} */
  const statuses = {}
  for (const result of results) statuses[result.status] = (statuses[result.status] ?? 0) + 1
  /** @type {Record<string, number>} */
  const levels = {}
  for (const result of challenged) levels[String(result.level)] = (levels[String(result.level)] ?? 0) + 1
  // Attempts answered per second before the first challenge, and after it.
  const challengedFromMs = firstChallengeMs
  const answeredBefore = challengedFromMs === null ? ATTEMPTS : results.filter((result) => result.endedMs <= challengedFromMs).length
  const ratePerSecond = {
    beforeChallenges: firstChallengeMs === null ? round(ATTEMPTS / (attackMs / 1000)) : round(answeredBefore / (firstChallengeMs / 1000)),
    afterFirstChallenge: firstChallengeMs === null ? null : round((ATTEMPTS - answeredBefore) / ((attackMs - firstChallengeMs) / 1000))
  }
  const summary = {
    ratePerSecond,
    attempts: ATTEMPTS,
    addresses: ADDRESSES,
    concurrency: CONCURRENCY,
    rightPairs,
    attackSeconds: round(attackMs / 1000),
    passedBeforeFirstChallenge: passedBeforeChallenges,
    unchallengedInAll: ATTEMPTS - challenged.length,
    challenged: challenged.length,
    challengeLevels: levels,
    solveMs: { median: round(median(solveMs)), p95: round(percentile(solveMs, 0.95)), max: round(Math.max(0, ...solveMs)), totalSeconds: round(solveMs.reduce((a, b) => a + b, 0) / 1000) },
    succeeded: results.filter((result) => result.status === 200).length,
    statuses,
    rangeCalls: rangeServer.calls(),
    visitor: {
      before: { status: before.status, challenged: before.challenged, solveMs: round(before.solveMs) },
      during: visitorDuring.map((result) => ({ status: result.status, challenged: result.challenged, solveMs: round(result.solveMs), level: result.level })),
      after: { status: after.status, challenged: after.challenged, solveMs: round(after.solveMs) }
    }
  }
  console.log(`\n${ATTEMPTS} stuffing attempts from ${ADDRESSES} addresses (${CONCURRENCY} at a time) in ${summary.attackSeconds} s; ${rightPairs} pairs right`)
  console.log(`  attempts answered per second: ${ratePerSecond.beforeChallenges} before the first challenge, ${ratePerSecond.afterFirstChallenge} after it`)
  console.log(`  passed on before the first challenge: ${summary.passedBeforeFirstChallenge}; never challenged in all: ${summary.unchallengedInAll}`)
  console.log(`  challenged: ${summary.challenged} (by level ${JSON.stringify(levels)}); solving per attempt in Node: median ${summary.solveMs.median} ms, p95 ${summary.solveMs.p95} ms, max ${summary.solveMs.max} ms, ${summary.solveMs.totalSeconds} s in all`)
  console.log(`  logins that succeeded: ${summary.succeeded}; answers ${JSON.stringify(statuses)}`)
  console.log(`  calls to the local breached-password range server: ${summary.rangeCalls}`)
  console.log(`  the visitor before: ${JSON.stringify(summary.visitor.before)}`)
  console.log(`  the visitor during: ${JSON.stringify(summary.visitor.during)}`)
  console.log(`  the visitor after ${AFTER_WAIT_S} s: ${JSON.stringify(summary.visitor.after)}`)
  if (json) console.log(JSON.stringify(summary))
} finally {
  await server.stop()
  rangeServer.close()
}
