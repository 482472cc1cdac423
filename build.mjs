// Builds the client into dist/public/ and the server into dist/server/.
//
//   node build.mjs             build everything
//   node build.mjs --if-stale  build only when dist/ is missing or older than the sources
//
// The client is bundled as ESM with code splitting, minified, with content-hashed
// names and brotli/gzip variants; dist/public/index.html is a template the server
// fills per page (language, rendered view, runtime configuration). Its source maps go to
// dist/client-sourcemaps/, outside what the edge serves, and the scripts name none:
// the edge serves them only with SOURCE_MAPS=public (docs/development.md).
// The edge is one CommonJS file that Node's compile cache holds; the build fills
// the cache by loading it once (server/edge/main.ts says why and where). The page
// renderer (client/server-render.tsx, React bundled in) is dist/server/page-renderer.cjs,
// which the edge loads by path at start to put the view in the HTML (docs/page.md).
//
// The client's part is build/client.mjs, the server's build/server.mjs; this file
// decides whether to build and runs both.
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildClient, buildPageRenderer, moveClientSourceMaps, precompress, writeIndexHtml } from './build/client.mjs'
import { assetsDir, dist, root } from './build/paths.mjs'
import { buildConformance, buildEdge, buildReference, writeCompileCache } from './build/server.mjs'

const stampFile = join(dist, '.build-stamp')
/** What the stamp records: the Node (V8 and architecture) the build ran on, for which it filled the compile cache. */
const BUILDING_NODE = `${process.arch}-v8-${process.versions.v8}`
const SOURCES = ['client', 'common', 'server', 'proto', 'conformance', 'docs/accounts-api.openapi.yaml', 'build.mjs', 'build', 'package.json', 'package-lock.json']

/**
 * @param {string} path
 * @returns {Promise<number>}
 */
async function newestSourceTime (path) {
  const info = await stat(path).catch(() => null)
  if (info === null) return 0
  if (!info.isDirectory()) return info.mtimeMs
  const entries = await readdir(path)
  const times = await Promise.all(entries.map((entry) => newestSourceTime(join(path, entry))))
  return Math.max(info.mtimeMs, ...times)
}

async function isStale () {
  const stamp = await stat(stampFile).catch(() => null)
  if (stamp === null) return true
  // Built by another Node: the compile cache is for that Node's V8, not this one's.
  if (await readFile(stampFile, 'utf8') !== BUILDING_NODE) return true
  const times = await Promise.all(SOURCES.map((source) => newestSourceTime(join(root, source))))
  return Math.max(...times) > stamp.mtimeMs
}

async function main () {
  if (process.argv.includes('--if-stale') && !(await isStale())) return
  const started = performance.now()
  await rm(dist, { recursive: true, force: true })
  await mkdir(assetsDir, { recursive: true })
  const [metafile] = await Promise.all([buildClient(), buildEdge(), buildReference(), buildConformance(), buildPageRenderer()])
  await writeFile(join(dist, 'client-meta.json'), JSON.stringify(metafile))
  await Promise.all([writeIndexHtml(metafile), moveClientSourceMaps()])
  const saved = await precompress()
  await writeCompileCache()
  await writeFile(stampFile, BUILDING_NODE)
  const seconds = ((performance.now() - started) / 1000).toFixed(2)
  const report = `build: dist/ written in ${seconds} s (brotli saves ${(saved / 1024).toFixed(0)} KiB)`
  // Before another command (npm start, npm run accounts…), stdout is that command's: a script
  // reading `npm run accounts -- show` must not get a build line when the sources changed.
  if (process.argv.includes('--if-stale')) console.error(report)
  else console.log(report)
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
