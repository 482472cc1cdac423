// `node dist/server/main.js`: starts the edge (server/edge.ts, built into
// dist/server/edge.cjs) from V8's code cache when the build left one for this
// Node (server/code-cache.ts says why).
//
// `node dist/server/main.js --write-code-cache` is run by build.mjs: it starts
// the edge on a loopback port with a stand-in backend, sends it the requests of
// a first page view and a login, and writes the cache from what V8 compiled
// meanwhile.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { loadBundleWithCodeCache } from './code-cache.js'
import type { runEdge } from './run-edge.js'

const EDGE_BUNDLE = fileURLToPath(new URL('./edge.cjs', import.meta.url))

/** The edge for the cache's warm-up: no embedded services, nothing logged, never reached from outside. */
function warmUpEnv (backendUrl: string): NodeJS.ProcessEnv {
  return { PORT: '0', HOST: '127.0.0.1', ACCOUNTS_URL: backendUrl, EDGE_AUTH_URL: backendUrl, LOG_LEVEL: 'silent' }
}

/** A stand-in backend on loopback for the warm-up: every call answers an empty JSON object. */
async function startWarmUpBackend (): Promise<{ url: string, close: () => void }> {
  const backend = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`, close: () => backend.close() }
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
  const backend = await startWarmUpBackend()
  const server = await start({ env: warmUpEnv(backend.url), codeCache: edge.codeCache })
  const { port } = server.server.address() as AddressInfo
  await visitOnce(`http://127.0.0.1:${port}`)
  await server.close()
  backend.close()
  edge.writeCodeCache()
  process.exit(0)
} else {
  await start({ env: process.env, codeCache: edge.codeCache })
}
