// npm run load:burst: a burst of concurrent password logins, each from an
// IPv6 /64 of its own (so that no per-address limit holds them back), then
// one legitimate login (docs/performance.md, "A burst of logins").
//
//   node bench/login-burst.mjs [--checkout DIR]... [--burst N] [--json]
//
// - For each checkout (this one by default; give several to compare, e.g. a
//   copy of main's tree and this one, in one run), the built server
//   (DIR/dist/server/main.js, built first with `build.mjs --if-stale`) runs
//   as in production, with its embedded reference service, the default
//   password hash cost (scrypt N = 2^17) and a fresh DATA_DIR, except that
//   TRUST_PROXY=loopback lets this script state each request's client
//   address in X-Forwarded-For.
// - One account is registered, then N logins (default 60) with wrong
//   passwords for unknown addresses are sent at once, each from
//   2001:db8:<i>::1; a second after the burst starts, the account's owner
//   tries to sign in from her own address.
// - The burst ends when its last answer arrives. The owner then signs in
//   again, and again on each 503 or 504 (after Retry-After, else 250 ms),
//   until she is let in.
// Printed: the answers of the burst by status, the longest and the median,
// the owner's try during the burst, and the time from the burst's end to
// her successful login. The aims: every answer within 5 s, the
// owner in within 2 s of the burst's end. Figures only: nothing fails.
// `--json` adds them as one JSON line at the end.
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, startSigninServer } from './tools.mjs'

const here = fileURLToPath(new URL('../', import.meta.url))
const checkouts = process.argv.flatMap((argument, index) => process.argv[index - 1] === '--checkout' ? [resolve(argument)] : [])
if (checkouts.length === 0) checkouts.push(here)
const burstIndex = process.argv.indexOf('--burst')
const burstSize = burstIndex === -1 ? 60 : Number(process.argv[burstIndex + 1])
const json = process.argv.includes('--json')

const OWNER = 'owner@example.com'
const OWNER_PASSWORD = 'correct horse battery staple'
const OWNER_ADDRESS = '198.51.100.7'
const GIVE_UP_AFTER_MS = 60_000

/**
 * One JSON POST as the page sends it; resolves with the status (a text when no answer came), Retry-After and when it started and ended.
 * @param {string} base
 * @param {string} path
 * @param {object} body
 * @param {string} address the client's, as X-Forwarded-For names it
 * @returns {Promise<{ status: number | string, retryAfter: string | null, started: number, ended: number }>}
 */
async function post (base, path, body, address) {
  const started = performance.now()
  try {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, 'x-forwarded-for': address },
      body: JSON.stringify(body)
    })
    await response.arrayBuffer()
    return { status: response.status, retryAfter: response.headers.get('retry-after'), started, ended: performance.now() }
  } catch (caught) {
    const error = /** @type {Error & { cause?: { code?: string } }} */ (caught)
    return { status: `failed (${error.cause?.code ?? error.message})`, retryAfter: null, started, ended: performance.now() }
  }
}

const ownerLogin = (/** @type {string} */ base) => post(base, '/accounts/v2/login', { email: OWNER, password: OWNER_PASSWORD }, OWNER_ADDRESS)

/** @param {string} checkout */
async function measure (checkout) {
  // The burst must not become range calls to the public API: no BREACHED_PASSWORDS_URL, so the check is off
  // (docs/breached-passwords.md).
  const server = await startSigninServer({}, { checkout })
  try {
    const registered = await post(server.base, '/accounts/register', { email: OWNER, password: OWNER_PASSWORD, confirm_password: OWNER_PASSWORD }, OWNER_ADDRESS)
    if (registered.status !== 200) throw new Error(`registering the owner failed: ${registered.status}`)
    const calm = await ownerLogin(server.base)
    const burstStarted = performance.now()
    const burst = Promise.all(Array.from({ length: burstSize }, (_, index) => post(server.base, '/accounts/v2/login',
      { email: `burst-${index}@example.com`, password: `wrong guess ${index}` }, `2001:db8:${(index + 1).toString(16)}::1`)))
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const during = await ownerLogin(server.base)
    const answers = await burst
    const burstEnded = Math.max(...answers.map((answer) => answer.ended))
    let after
    let tries = 0
    for (;;) {
      tries++
      after = await ownerLogin(server.base)
      if (after.status === 200 || performance.now() - burstEnded > GIVE_UP_AFTER_MS) break
      if (after.status !== 503 && after.status !== 504) break
      const retryAfterMs = after.retryAfter === null ? 250 : Number(after.retryAfter) * 1000
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs))
    }
    const durations = answers.map((answer) => answer.ended - answer.started)
    /** @type {Record<string, number>} */
    const statuses = {}
    for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
    return {
      checkout,
      burst: burstSize,
      statuses,
      longestMs: Math.round(Math.max(...durations)),
      medianMs: Math.round(median(durations)),
      burstLastedMs: Math.round(burstEnded - burstStarted),
      calmLoginMs: Math.round(calm.ended - calm.started),
      ownerDuringBurst: { status: during.status, ms: Math.round(during.ended - during.started) },
      ownerAfterBurst: { status: after.status, tries, msFromBurstEnd: Math.round(after.ended - burstEnded) }
    }
  } finally {
    await server.stop()
  }
}

const results = []
for (const checkout of checkouts) {
  const result = await measure(checkout)
  results.push(result)
  console.log(`\n${checkout}`)
  console.log(`  a login with nothing else going on: ${result.calmLoginMs} ms`)
  console.log(`  burst of ${result.burst} logins from distinct /64s: answers ${JSON.stringify(result.statuses)}; ` +
    `longest ${result.longestMs} ms, median ${result.medianMs} ms; the burst lasted ${result.burstLastedMs} ms`)
  console.log(`  the owner during the burst: ${result.ownerDuringBurst.status} after ${result.ownerDuringBurst.ms} ms`)
  console.log(`  the owner after the burst: ${result.ownerAfterBurst.status} at ${result.ownerAfterBurst.msFromBurstEnd} ms after its end ` +
    `(${result.ownerAfterBurst.tries} ${result.ownerAfterBurst.tries === 1 ? 'try' : 'tries'})`)
}
if (json) console.log(JSON.stringify(results))
