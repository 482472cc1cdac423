// `node dist/server/main.js`: turns on Node's module compile cache, then
// starts the edge (server/edge/run-edge.ts, built into dist/server/edge.cjs).
// The cache lives in dist/compile-cache/; `npm run build` fills it
// (`node dist/server/main.js --write-compile-cache`), and so does the image's
// runtime stage, as the user the container runs as: Node keeps one cache per
// Node version, V8 flags and user. Where there is no usable cache the edge
// compiles from source, about 45 ms slower (docs/performance.md), and works the same.
import module, { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { exitOnUnsupportedNode } from '../shared/supported-node.js'
import type { runEdge } from './run-edge.js'

const EDGE_BUNDLE = fileURLToPath(new URL('./edge.cjs', import.meta.url))
/** The page renderer (client/server-render.tsx), which the edge loads at start (server/edge/page/page-renderer.ts): cached alike. */
const RENDERER_BUNDLE = fileURLToPath(new URL('./page-renderer.cjs', import.meta.url))
const CACHE_DIR = fileURLToPath(new URL('../compile-cache/', import.meta.url))

/**
 * What enableCompileCache answered, by name (ENABLED, ALREADY_ENABLED when
 * NODE_COMPILE_CACHE is set, FAILED with a folder it cannot write, DISABLED by
 * NODE_DISABLE_COMPILE_CACHE). `portable`: entries are keyed by the bundle's
 * path relative to the cache, so a dist/ copied elsewhere still finds them.
 * Node before 24.12 takes only a folder (not portable: a copied dist/ then
 * compiles the edge once from source).
 */
function enableCompileCache (): string {
  let result
  try {
    result = module.enableCompileCache({ directory: CACHE_DIR, portable: true })
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_INVALID_ARG_TYPE') throw error
    result = module.enableCompileCache(CACHE_DIR)
  }
  const names = module.constants.compileCacheStatus
  return (Object.keys(names) as Array<keyof typeof names>).find((name) => names[name] === result.status) ?? String(result.status)
}

exitOnUnsupportedNode()
const compileCache = enableCompileCache()
const { runEdge: start } = createRequire(import.meta.url)(EDGE_BUNDLE) as { runEdge: typeof runEdge }

if (process.argv.includes('--write-compile-cache')) {
  // Node caches a module as it compiles it: loading the bundles was the work.
  createRequire(import.meta.url)(RENDERER_BUNDLE)
  if (compileCache !== 'ENABLED' && compileCache !== 'ALREADY_ENABLED') {
    console.error(`threshold: the compile cache could not be written to ${CACHE_DIR} (${compileCache})`)
    process.exit(1)
  }
  module.flushCompileCache()
} else {
  await start({ env: process.env, compileCache })
}
