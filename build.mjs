// Builds the client into dist/public/ and the server into dist/server/.
//
//   node build.mjs             build everything
//   node build.mjs --if-stale  build only when dist/ is missing or older than the sources
//
// The client is bundled as ESM with code splitting, minified, with content-hashed
// names and brotli/gzip variants; dist/public/index.html is a template the server
// fills per request (nonce, runtime configuration). Its source maps go to
// dist/client-sourcemaps/, outside what the edge serves, and the scripts name none:
// the edge serves them only with SOURCE_MAPS=public (docs/development.md).
// The edge is one CommonJS file that Node's compile cache holds; the build fills
// the cache by loading it once (server/edge/main.ts says why and where). The page
// renderer (client/server-render.tsx, React bundled in) is dist/server/page-renderer.cjs,
// which the edge loads by path at start to put the view in the HTML (docs/page.md).
import { build } from 'esbuild'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { firstLoadInOneChunk } from './first-load-chunk.mjs'
import { workerAssets } from './worker-asset.mjs'

const root = dirname(fileURLToPath(import.meta.url))
const dist = join(root, 'dist')
const publicDir = join(dist, 'public')
const assetsDir = join(publicDir, 'assets')
/** The client's source maps, for an error tracker; the edge serves them only with SOURCE_MAPS=public. */
const clientSourceMapsDir = join(dist, 'client-sourcemaps')
const stampFile = join(dist, '.build-stamp')
/** What the stamp records: the Node (V8 and architecture) the build ran on, for which it filled the compile cache. */
const BUILDING_NODE = `${process.arch}-v8-${process.versions.v8}`
const SOURCES = ['client', 'common', 'server', 'proto', 'conformance', 'docs/accounts-api.openapi.yaml', 'build.mjs', 'first-load-chunk.mjs', 'worker-asset.mjs', 'package.json', 'package-lock.json']

/** Browsers the page supports: the last few years of every engine, phones included. */
const CLIENT_TARGETS = ['chrome92', 'edge92', 'firefox90', 'safari15', 'ios15']
// Licence texts (and source maps, when public) are streamed from disk as they are (server/edge/static-files.ts).
const COMPRESSIBLE = /\.(js|css|svg|html|json)$/

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

function contentHash (bytes) {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 10).toUpperCase().replace(/[-_]/g, 'X')
}

async function buildClient () {
  const result = await build({
    entryPoints: { main: join(root, 'client/main.tsx') },
    outdir: assetsDir,
    publicPath: '/assets',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: CLIENT_TARGETS,
    minify: true,
    // Written beside the scripts without a sourceMappingURL comment, then moved out of the served folder.
    sourcemap: 'external',
    legalComments: 'external',
    metafile: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    loader: MEDIA_LOADERS,
    // The proof-of-work Web Worker is an asset of its own, named by its content (worker-asset.mjs).
    plugins: [firstLoadInOneChunk(join(root, 'client/start-page.tsx')), workerAssets(CLIENT_TARGETS)],
    logLevel: 'warning'
  })
  return result.metafile
}

/** The client's media as the client bundle names them: the renderer's markup must point at the same files. */
const MEDIA_LOADERS = { '.mp4': 'file', '.webm': 'file', '.jpg': 'file', '.webp': 'file', '.png': 'file', '.svg': 'file' }

/**
 * The page renderer: the client's components for Node, React in production
 * mode, one CommonJS file. Its media imports resolve to the client bundle's
 * hashed URLs (same loader, names and public path; esbuild's hash is of the
 * content); nothing but the script is written, the media being the client's.
 */
async function buildPageRenderer () {
  const result = await build({
    entryPoints: { 'page-renderer': join(root, 'client/server-render.tsx') },
    outdir: join(dist, 'server'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node22.14',
    format: 'cjs',
    minifyWhitespace: true,
    minifySyntax: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    publicPath: '/assets',
    assetNames: '[name]-[hash]',
    loader: MEDIA_LOADERS,
    legalComments: 'none',
    // The challenge's chunk is bundled in (never run on the server); its worker's URL must resolve as the client's does.
    plugins: [workerAssets(CLIENT_TARGETS)],
    write: false,
    logLevel: 'warning'
  })
  const script = result.outputFiles.find((file) => file.path.endsWith('page-renderer.cjs'))
  if (script === undefined) throw new Error('build: the page renderer produced no script')
  await mkdir(dirname(script.path), { recursive: true })
  await writeFile(script.path, script.contents)
}

/** Moves the client's source maps out of dist/public/, where nothing serves them unless asked. */
async function moveClientSourceMaps () {
  await mkdir(clientSourceMapsDir, { recursive: true })
  const maps = (await readdir(assetsDir)).filter((name) => name.endsWith('.map'))
  await Promise.all(maps.map((name) => rename(join(assetsDir, name), join(clientSourceMapsDir, name))))
}

/** Fills the HTML template with the entry's stylesheet, script and preloads. */
async function writeIndexHtml (metafile) {
  const outputs = Object.entries(metafile.outputs)
  const entry = outputs.find(([, output]) => output.entryPoint?.endsWith('client/main.tsx'))
  if (entry === undefined) throw new Error('build: the client entry produced no output')
  const [entryPath, entryOutput] = entry
  const toUrl = (path) => `/${relative(publicDir, join(root, path)).split('\\').join('/')}`
  const preloads = entryOutput.imports
    .filter((imported) => imported.kind === 'import-statement' && !imported.external)
    .map((imported) => `<link rel="modulepreload" href="${toUrl(imported.path)}">`)
  const stylesheet = entryOutput.cssBundle === undefined
    ? ''
    : `<link rel="stylesheet" href="${toUrl(entryOutput.cssBundle)}">`

  const favicon = await readFile(join(root, 'client/media/favicon.svg'))
  const faviconName = `favicon-${contentHash(favicon)}.svg`
  await writeFile(join(assetsDir, faviconName), favicon)

  const template = await readFile(join(root, 'client/index.html'), 'utf8')
  const html = template
    .replace('<!--BUILD:HEAD-->', [
      `<link rel="icon" href="/assets/${faviconName}" type="image/svg+xml">`,
      stylesheet,
      ...preloads,
      `<script type="module" nonce="__THRESHOLD_NONCE__" src="${toUrl(entryPath)}"></script>`
    ].filter(Boolean).join('\n    '))
    // The template's comments are for its readers, not for every page view; the edge's slots (<!--THRESHOLD:…-->) stay.
    .replace(/\n\s*<!--(?!THRESHOLD:)[\s\S]*?-->/g, '')
  await writeFile(join(publicDir, 'index.html'), html)
}

async function precompress () {
  let saved = 0
  for (const name of await readdir(assetsDir)) {
    if (!COMPRESSIBLE.test(name)) continue
    const bytes = await readFile(join(assetsDir, name))
    const brotli = brotliCompressSync(bytes, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length }
    })
    const gzip = gzipSync(bytes, { level: 9 })
    // A variant that is not smaller is useless; the server then sends the original.
    if (brotli.length < bytes.length) await writeFile(join(assetsDir, `${name}.br`), brotli)
    if (gzip.length < bytes.length) await writeFile(join(assetsDir, `${name}.gz`), gzip)
    saved += bytes.length - Math.min(brotli.length, bytes.length)
  }
  return saved
}

/**
 * Packages the server bundle leaves to node_modules: native modules, and
 * optional native add-ons the bundled packages try to load.
 */
const SERVER_EXTERNALS = ['better-sqlite3', 'pg-native', 'cpu-features', 'ssh2']

/** @fastify/reply-from's `require('undici')` → server/edge/undici-for-reply-from.cjs (why: there). */
const slimUndiciForReplyFrom = {
  name: 'slim-undici-for-reply-from',
  setup (builder) {
    builder.onResolve({ filter: /^undici$/ }, (args) =>
      /[\\/]@fastify[\\/]reply-from[\\/]/.test(args.importer)
        ? { path: join(root, 'server/edge/undici-for-reply-from.cjs') }
        : undefined)
  }
}

/** Options every server build shares. */
const SERVER_COMMON = {
  plugins: [slimUndiciForReplyFrom],
  outdir: join(dist, 'server'),
  bundle: true,
  minifyWhitespace: true,
  minifySyntax: true,
  platform: 'node',
  // The oldest Node the server supports (package.json engines).
  target: 'node22.14',
  // The dependencies are bundled in: loading hundreds of files through Node's
  // module loader took most of the server's start (over half a second here).
  external: SERVER_EXTERNALS,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning'
}

/**
 * The edge, as one CommonJS file (dist/server/edge.cjs) that Node's compile
 * cache keeps compiled, and the small ESM entry that turns the cache on and
 * loads it (dist/server/main.js).
 */
async function buildEdge () {
  await Promise.all([
    build({
      ...SERVER_COMMON,
      entryPoints: { edge: join(root, 'server/edge/run-edge.ts') },
      outExtension: { '.js': '.cjs' },
      format: 'cjs',
      // What only some starts need (ioredis, the embedded services' starter) is
      // in the file but never run, and the compile cache spares parsing it.
      define: { 'import.meta.url': '__thresholdImportMetaUrl' },
      banner: { js: "const __thresholdImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" }
    }),
    build({
      ...SERVER_COMMON,
      entryPoints: { main: join(root, 'server/edge/main.ts') },
      format: 'esm'
    })
  ])
}

/** The reference services and their admin command, as ESM sharing chunks. */
async function buildReference () {
  await build({
    ...SERVER_COMMON,
    entryPoints: {
      reference: join(root, 'server/reference/main.ts'),
      'accounts-admin': join(root, 'server/reference/admin/admin.ts')
    },
    // What only some starts need (SSO, PostgreSQL) stays in chunks that are never parsed.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    // Bundled CommonJS packages call require() and read __dirname.
    banner: {
      js: [
        "import { createRequire as __thresholdCreateRequire } from 'node:module'",
        "import { dirname as __thresholdDirname } from 'node:path'",
        "import { fileURLToPath as __thresholdFileURLToPath } from 'node:url'",
        'const require = __thresholdCreateRequire(import.meta.url)',
        'const __filename = __thresholdFileURLToPath(import.meta.url)',
        'const __dirname = __thresholdDirname(__filename)'
      ].join('\n')
    }
  })
}

/**
 * The conformance check (`npm run conformance`), as one ESM file,
 * dist/conformance/main.js. Its yaml and ajv are development packages,
 * bundled in here: nothing the server runs needs them. It reads the OpenAPI
 * document when it runs (conformance/contract-file.ts looks for
 * docs/accounts-api.openapi.yaml upwards from its folder), so a copy goes to
 * dist/docs/: the Docker image, which holds dist/ and no docs/, checks answers
 * against the document too.
 */
async function buildConformance () {
  await mkdir(join(dist, 'docs'), { recursive: true })
  await copyFile(join(root, 'docs/accounts-api.openapi.yaml'), join(dist, 'docs/accounts-api.openapi.yaml'))
  await build({
    ...SERVER_COMMON,
    plugins: [],
    outdir: join(dist, 'conformance'),
    entryPoints: { main: join(root, 'conformance/main.ts') },
    format: 'esm',
    banner: { js: "import { createRequire as __thresholdCreateRequire } from 'node:module'\nconst require = __thresholdCreateRequire(import.meta.url)" }
  })
}

/**
 * Fills dist/compile-cache/ by loading the built edge once (server/edge/main.ts,
 * --write-compile-cache). Node keeps a cache per V8 flags, so NODE_OPTIONS is
 * passed on: build with the flags you run with.
 */
async function writeCompileCache () {
  const env = { PATH: process.env.PATH, ...(process.env.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.NODE_OPTIONS }) }
  await new Promise((resolve, reject) => {
    execFile(process.execPath, [join(dist, 'server/main.js'), '--write-compile-cache'], { env, timeout: 30_000 },
      (error, _stdout, stderr) => error === null ? resolve() : reject(new Error(`build: filling the compile cache failed: ${stderr || error.message}`)))
  })
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
