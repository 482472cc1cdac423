// Preloaded into the edge by npm run load (node --import): appends the
// process's own memory use to the file THRESHOLD_MEMORY_PROBE names, one JSON
// line every THRESHOLD_MEMORY_PROBE_MS. The server's code is not touched.
import { appendFileSync } from 'node:fs'

const file = process.env.THRESHOLD_MEMORY_PROBE
const everyMs = Number(process.env.THRESHOLD_MEMORY_PROBE_MS) || 1000

if (file) {
  setInterval(() => {
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage()
    appendFileSync(file, `${JSON.stringify({ at: Date.now(), rss, heapUsed, heapTotal, external })}\n`)
  }, everyMs).unref()
}
