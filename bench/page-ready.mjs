// npm run bench:page: how long until the login form is usable (the Login
// button enabled and focusable), in headless Chromium with 4× CPU throttling
// and a fast-3G-like network (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s
// up, as Lighthouse simulates it). Prints the median of 10 cold loads (empty
// cache) and of 10 repeat visits (assets cached, as they are for a year).
import { execFileSync } from 'node:child_process'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { commandExists, median, startEdge } from './tools.mjs'

const RUNS = 10
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const NETWORK = { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 }

execFileSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url)), '--if-stale'], { stdio: 'inherit' })
if (!commandExists(CHROMIUM)) {
  console.error(`bench:page: Chromium is not installed at ${CHROMIUM} (Debian package chromium)`)
  process.exit(1)
}

const backend = createServer((_request, response) => response.end('{}')).listen(0, '127.0.0.1')
await new Promise((resolve) => backend.once('listening', resolve))
const backendUrl = `http://127.0.0.1:${backend.address().port}`
const edge = await startEdge({ ACCOUNTS_URL: backendUrl, EDGE_AUTH_URL: backendUrl, LOG_LEVEL: 'info' })
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
})

/** Records, in the page, when the Login button is first enabled and can take focus. */
function watchForUsableForm () {
  const check = () => {
    const button = [...document.querySelectorAll('button[type="submit"]')].find((candidate) => candidate.textContent === 'Login')
    if (button === undefined || button.disabled) return false
    button.focus()
    if (document.activeElement !== button) return false
    window.__loginUsableAt = performance.now()
    return true
  }
  new MutationObserver((_records, observer) => { if (check()) observer.disconnect() })
    .observe(document, { subtree: true, childList: true, attributes: true })
}

async function measure (context) {
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', NETWORK)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
  await page.addInitScript(watchForUsableForm)
  await page.goto(edge.base, { waitUntil: 'commit' })
  await page.waitForFunction(() => window.__loginUsableAt !== undefined, undefined, { timeout: 30_000 })
  const usableAt = await page.evaluate(() => window.__loginUsableAt)
  await page.close()
  return Math.round(usableAt)
}

const cold = []
const warm = []
for (let run = 0; run < RUNS; run++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  cold.push(await measure(context))
  warm.push(await measure(context))
  await context.close()
}
await browser.close()
await edge.stop()
backend.close()

console.log(`login form usable (Login button enabled and focusable), 4× CPU throttling, fast 3G (150 ms RTT, 1.6 Mbit/s):
  first visit:  median ${median(cold)} ms (${cold.join(', ')})
  repeat visit: median ${median(warm)} ms (${warm.join(', ')})
  target: under 1000 ms`)
