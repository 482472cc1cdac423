// npm run bench:challenge: the work of the edge's proof of work per level
// (server/edge/challenge/proof-of-work.ts: PBKDF2/SHA-256, cost 1,000, the
// counter drawn from [0, 600) at level 1 and doubling per level).
//
//   node bench/challenge-work.mjs [--draws N] [--levels N]
//
// Solves N challenges per level (default 16, levels 1 to 3) with altcha-lib:
// in Node (its node:crypto PBKDF2, an attacker's fastest), and, where
// Chromium is installed (CHROMIUM_PATH, default /usr/bin/chromium), in
// Chromium with the very module the page's Worker uses
// (altcha-lib/algorithms/web/pbkdf2, WebCrypto), one solver on one thread.
// Each browser solution is checked with altcha-lib's verifySolution, as the
// edge checks it. Prints the mean, the median and the range per level (the
// counter is uniform from 0, so the mean is what many solutions cost), and
// the time of one key derivation. Figures only.
import { createChallenge, solveChallenge, verifySolution } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, portOf } from './tools.mjs'

const here = fileURLToPath(new URL('../', import.meta.url))
const option = (/** @type {string} */ name, /** @type {number} */ fallback) => {
  const index = process.argv.indexOf(name)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const DRAWS = option('--draws', 16)
const LEVELS = option('--levels', 3)
const COST = 1000
const LEVEL_ONE_MAX_COUNTER = 600
const SECRET = 'a benchmark secret of 32 characters or more'
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** @param {number} level */
async function challengeOf (level) {
  const max = LEVEL_ONE_MAX_COUNTER * 2 ** (level - 1)
  const counter = Math.floor(Math.random() * max)
  return await createChallenge({ algorithm: 'PBKDF2/SHA-256', cost: COST, counter, deriveKey, hmacSignatureSecret: SECRET, hmacKeySignatureSecret: SECRET + '-key' })
}

const mean = (/** @type {number[]} */ values) => values.reduce((sum, value) => sum + value, 0) / values.length
const summary = (/** @type {number[]} */ times, /** @type {number[]} */ counters) => `mean ${Math.round(mean(times))} ms, median ${Math.round(median(times))} ms (${Math.round(Math.min(...times))}–${Math.round(Math.max(...times))}); ` +
  `${(times.reduce((sum, time) => sum + time, 0) / counters.reduce((sum, counter) => sum + counter + 1, 0)).toFixed(2)} ms per derivation`

for (let level = 1; level <= LEVELS; level++) {
  /** @type {number[]} */
  const times = []
  /** @type {number[]} */
  const counters = []
  for (let draw = 0; draw < DRAWS; draw++) {
    const challenge = await challengeOf(level)
    const started = performance.now()
    const solution = await solveChallenge({ challenge, deriveKey })
    times.push(performance.now() - started)
    if (solution === null) throw new Error(`Node found no solution at level ${level}`)
    counters.push(solution.counter)
  }
  console.log(`Node, level ${level}: ${summary(times, counters)}`)
}

if (!existsSync(CHROMIUM)) {
  console.log(`no Chromium at ${CHROMIUM}: the browser's figures are left out`)
} else {
  const { chromium } = await import('playwright-core')
  const altchaDir = join(here, 'node_modules/altcha-lib/dist/esm/v2')
  // A page on 127.0.0.1 (a secure context, for WebCrypto) that serves altcha-lib's own ES modules.
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    if (path.startsWith('/altcha/') && !path.includes('..')) {
      try {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(altchaDir, path.slice('/altcha/'.length))))
      } catch {
        response.writeHead(404).end()
      }
      return
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>work</title>')
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'], headless: true })
  try {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${portOf(server)}/`)
    for (let level = 1; level <= LEVELS; level++) {
      /** @type {number[]} */
      const times = []
      /** @type {number[]} */
      const counters = []
      for (let draw = 0; draw < DRAWS; draw++) {
        const challenge = await challengeOf(level)
        const { solution, ms } = await page.evaluate(async (challenge) => {
          // The page's URLs of altcha-lib's modules (the server above serves them), typed as the package's own.
          const index = '/altcha/index.js'
          const webPbkdf2 = '/altcha/algorithms/web/pbkdf2.js'
          const { solveChallenge } = /** @type {typeof import('altcha-lib')} */ (await import(index))
          const { deriveKey } = /** @type {typeof import('altcha-lib/algorithms/web/pbkdf2')} */ (await import(webPbkdf2))
          const started = performance.now()
          const solution = await solveChallenge({ challenge, deriveKey })
          return { solution, ms: performance.now() - started }
        }, challenge)
        if (solution === null) throw new Error(`Chromium found no solution at level ${level}`)
        const checked = await verifySolution({ challenge, solution, deriveKey, hmacSignatureSecret: SECRET, hmacKeySignatureSecret: SECRET + '-key' })
        if (!checked.verified) throw new Error(`Chromium's solution at level ${level} does not verify`)
        times.push(ms)
        counters.push(solution.counter)
      }
      console.log(`Chromium (${browser.version()}), level ${level}: ${summary(times, counters)}; every solution verified`)
    }
  } finally {
    await browser.close()
    server.close()
  }
}
