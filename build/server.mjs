// The server's part of the build (build.mjs runs it): the edge as one CommonJS
// file and its ESM entry, the reference services and their admin command, the
// conformance check, all in dist/; then Node's compile cache for the edge.
import { build } from 'esbuild'
import { execFile } from 'node:child_process'
import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { dist, root } from './paths.mjs'

/** @import { BuildOptions, Plugin } from 'esbuild' */

/**
 * Packages the server bundle leaves to node_modules: native modules, and
 * optional native add-ons the bundled packages try to load.
 */
const SERVER_EXTERNALS = ['better-sqlite3', 'pg-native', 'cpu-features', 'ssh2']

/**
 * @fastify/reply-from's `require('undici')` → server/edge/upstream/undici-for-reply-from.cjs (why: there).
 * @type {Plugin}
 */
const slimUndiciForReplyFrom = {
  name: 'slim-undici-for-reply-from',
  setup (builder) {
    builder.onResolve({ filter: /^undici$/ }, (args) =>
      /[\\/]@fastify[\\/]reply-from[\\/]/.test(args.importer)
        ? { path: join(root, 'server/edge/upstream/undici-for-reply-from.cjs') }
        : undefined)
  }
}

/**
 * Options every server build shares.
 * @type {BuildOptions}
 */
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
export async function buildEdge () {
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
export async function buildReference () {
  await build({
    ...SERVER_COMMON,
    entryPoints: {
      reference: join(root, 'server/reference/main.ts'),
      'accounts-admin': join(root, 'server/reference/admin/admin.ts')
    },
    // oidc-provider names its models, their adapter's rows and their lifetimes (ttl) by their
    // classes' names: minifySyntax would drop the names of its class expressions.
    keepNames: true,
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
export async function buildConformance () {
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
export async function writeCompileCache () {
  const env = { PATH: process.env.PATH, ...(process.env.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.NODE_OPTIONS }) }
  /** @type {Promise<void>} */
  const filled = new Promise((resolve, reject) => {
    execFile(process.execPath, [join(dist, 'server/main.js'), '--write-compile-cache'], { env, timeout: 30_000 },
      (error, _stdout, stderr) => error === null ? resolve() : reject(new Error(`build: filling the compile cache failed: ${stderr || error.message}`)))
  })
  await filled
}
