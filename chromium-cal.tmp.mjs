import { chromium } from 'playwright-core'
import { createChallenge } from 'altcha-lib'
import { deriveKey as nodeDerive } from 'altcha-lib/algorithms/pbkdf2'
import { readFileSync } from 'node:fs'
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'], headless: true })
const page = await browser.newPage()
const { createServer } = await import('node:http')
const server = createServer((q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end('<p>x</p>')).listen(0, '127.0.0.1')
await new Promise((resolve) => server.once('listening', resolve))
await page.goto(`http://127.0.0.1:${server.address().port}/`)
// The web deriveKey and solve loop, as altcha-lib's web algorithm runs them (inlined: about:blank has no module loader).
const results = []
for (const level of [1, 2, 3]) {
  const times = []
  for (let i = 0; i < 6; i++) {
    const max = 400 * 2 ** (level - 1)
    const counter = Math.floor(max / 2 + Math.random() * max / 2)
    const challenge = await createChallenge({ algorithm: 'PBKDF2/SHA-256', cost: 1000, counter, deriveKey: nodeDerive, hmacSignatureSecret: 'x'.repeat(32) })
    const ms = await page.evaluate(async (parameters) => {
      const hex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)))
      const nonce = hex(parameters.nonce); const salt = hex(parameters.salt); const prefix = parameters.keyPrefix
      const buffer = new Uint8Array(nonce.length + 4); buffer.set(nonce); const view = new DataView(buffer.buffer)
      const started = performance.now()
      for (let n = 0; ; n++) {
        view.setUint32(nonce.length, n, false)
        const key = await crypto.subtle.importKey('raw', buffer, { name: 'PBKDF2' }, false, ['deriveBits'])
        const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', salt, iterations: parameters.cost, hash: 'SHA-256' }, key, 256))
        const h = Array.from(bits.slice(0, prefix.length / 2), (b) => b.toString(16).padStart(2, '0')).join('')
        if (h === prefix) return performance.now() - started
      }
    }, challenge.parameters)
    times.push(Math.round(ms))
  }
  results.push({ level, times })
}
console.log(JSON.stringify(results))
await browser.close()
server.close()
