// `node dist/server/main.js`: starts the edge (server/edge.ts, built into
// dist/server/edge.cjs) from V8's code cache when the build left one for this
// Node (server/code-cache.ts says why).
//
// `node dist/server/main.js --write-code-cache` is run by build.mjs: it starts
// the edge on a loopback port with placeholder backends, sends it the requests
// of a first page view, and writes the cache from what V8 compiled meanwhile.
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { loadBundleWithCodeCache } from './code-cache.js'
import type { runEdge } from './edge.js'

const EDGE_BUNDLE = fileURLToPath(new URL('./edge.cjs', import.meta.url))

/** The edge for the cache's warm-up: no embedded services, nothing logged, never reached from outside. */
const WARM_UP_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  // Nothing listens on the discard port: the proxied calls fail at once, as answers the page handles.
  ACCOUNTS_URL: 'http://127.0.0.1:9',
  EDGE_AUTH_URL: 'http://127.0.0.1:9',
  LOG_LEVEL: 'silent'
}

/** The requests of a first visit, so that the cache also holds the code that answers them. */
async function visitOnce (base: string): Promise<void> {
  const page = await (await fetch(`${base}/`)).text()
  for (const [, asset] of page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
    await (await fetch(`${base}${asset}`, { headers: { 'accept-encoding': 'br, gzip' } })).arrayBuffer()
  }
  await (await fetch(`${base}/healthz`)).arrayBuffer()
  await (await fetch(`${base}/no-such-page`)).arrayBuffer()
  await (await fetch(`${base}/accounts/v2/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: '{}'
  })).arrayBuffer()
}

const edge = loadBundleWithCodeCache(EDGE_BUNDLE)
const start = (edge.exports as { runEdge: typeof runEdge }).runEdge

if (process.argv.includes('--write-code-cache')) {
  const server = await start({ env: WARM_UP_ENV, codeCache: edge.codeCache })
  const { port } = server.server.address() as AddressInfo
  await visitOnce(`http://127.0.0.1:${port}`)
  await server.close()
  edge.writeCodeCache()
  process.exit(0)
} else {
  await start({ env: process.env, codeCache: edge.codeCache })
}
