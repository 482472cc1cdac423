// The client's part of the build (build.mjs runs it): the page's bundle in
// dist/public/assets/ (ESM, split, minified, content-hashed, with brotli and gzip
// variants), its source maps moved to dist/client-sourcemaps/, the HTML template
// dist/public/index.html with the page's CSS inline, and the page renderer
// dist/server/page-renderer.cjs.
import { build } from 'esbuild'
import { createHash } from 'node:crypto'
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { firstLoadInOneChunk } from './first-load-chunk.mjs'
import { nativeStoreHook } from './native-store-hook.mjs'
import { assetsDir, clientSourceMapsDir, dist, publicDir, root } from './paths.mjs'
import { workerAssets } from './worker-asset.mjs'

/** @import { Loader, Metafile } from 'esbuild' */

/** Browsers the page supports: the last few years of every engine, phones included. */
const CLIENT_TARGETS = ['chrome92', 'edge92', 'firefox90', 'safari15', 'ios15']
// Licence texts (and source maps, when public) are streamed from disk as they are (server/edge/page/static-files.ts).
const COMPRESSIBLE = /\.(js|css|svg|html|json)$/

/** @param {Buffer} bytes */
function contentHash (bytes) {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 10).toUpperCase().replace(/[-_]/g, 'X')
}

/** The page's bundle in dist/public/assets/; resolves with esbuild's metafile, which writeIndexHtml reads. */
export async function buildClient () {
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
    // The proof-of-work Web Worker is an asset of its own, named by its content (build/worker-asset.mjs).
    plugins: [firstLoadInOneChunk(join(root, 'client/start-page.tsx')), nativeStoreHook(), workerAssets(CLIENT_TARGETS)],
    logLevel: 'warning'
  })
  return result.metafile
}

/**
 * The client's media as the client bundle names them: the renderer's markup must point at the same files.
 * @type {Record<string, Loader>}
 */
const MEDIA_LOADERS = { '.mp4': 'file', '.webm': 'file', '.jpg': 'file', '.webp': 'file', '.png': 'file', '.svg': 'file' }

/**
 * The page renderer: the client's components for Node, React in production
 * mode, one CommonJS file. Its media imports resolve to the client bundle's
 * hashed URLs (same loader, names and public path; esbuild's hash is of the
 * content); nothing but the script is written, the media being the client's.
 */
export async function buildPageRenderer () {
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
  const script = (result.outputFiles ?? []).find((file) => file.path.endsWith('page-renderer.cjs'))
  if (script === undefined) throw new Error('build: the page renderer produced no script')
  await mkdir(dirname(script.path), { recursive: true })
  await writeFile(script.path, script.contents)
}

/** Moves the client's source maps out of dist/public/, where nothing serves them unless asked. */
export async function moveClientSourceMaps () {
  await mkdir(clientSourceMapsDir, { recursive: true })
  const maps = (await readdir(assetsDir)).filter((name) => name.endsWith('.map'))
  await Promise.all(maps.map((name) => rename(join(assetsDir, name), join(clientSourceMapsDir, name))))
}

/**
 * Each view's module (client/SignInPage.tsx viewParts), whose chunks the page of that view loads
 * before it hydrates: the edge names them in the page (server/edge/page/view-preloads.ts reads the list).
 */
const VIEW_MODULES = {
  login: 'client/sign-in/LoginView.tsx',
  register: 'client/registration/RegisterView.tsx',
  resetPassword: 'client/password-reset/ResetPasswordView.tsx',
  setPassword: 'client/password-reset/SetPasswordView.tsx',
  account: 'client/account/AccountView.tsx'
}

/**
 * The chunks `path` imports statically, itself included, and what those import in turn.
 * @param {Metafile} metafile
 * @param {string} path
 * @param {Set<string>} seen
 */
function staticImports (metafile, path, seen = new Set()) {
  if (seen.has(path)) return seen
  seen.add(path)
  for (const imported of metafile.outputs[path]?.imports ?? []) {
    if (imported.kind === 'import-statement' && !imported.external) staticImports(metafile, imported.path, seen)
  }
  return seen
}

/**
 * client/styles.css minified, for a `<style>` in the template's head: all of
 * the page's CSS is inline, so no stylesheet blocks the first paint
 * (docs/performance.md, "The page's CSS, inline"). The edge allows it by its
 * hash (server/edge/page/page.ts pageStyleSources), so it must come out byte
 * for byte as written, and hold no `<` that could end its element.
 */
async function pageStyle () {
  const result = await build({
    entryPoints: [join(root, 'client/styles.css')],
    bundle: true,
    minify: true,
    target: CLIENT_TARGETS,
    write: false,
    outdir: assetsDir,
    logLevel: 'warning'
  })
  const css = (result.outputFiles[0]?.text ?? '').trim()
  if (css === '' || css.includes('<')) throw new Error('build: client/styles.css must give a stylesheet without "<" to be inlined')
  // Inline, a relative url() would resolve against the page's address, not the assets' folder.
  if (/url\((?!\s*["']?data:)/.test(css)) throw new Error('build: client/styles.css must name no file by url() to be inlined (a data: URL will do)')
  return css
}

/**
 * Fills the HTML template with the page's CSS (inline), the entry's script and preloads, and the slot for the
 * rendered view's own, whose URLs go to view-preloads.json beside it.
 * @param {Metafile} metafile
 */
export async function writeIndexHtml (metafile) {
  const outputs = Object.entries(metafile.outputs)
  const entry = outputs.find(([, output]) => output.entryPoint?.endsWith('client/main.tsx'))
  if (entry === undefined) throw new Error('build: the client entry produced no output')
  const [entryPath, entryOutput] = entry
  const toUrl = (/** @type {string} */ path) => `/${relative(publicDir, join(root, path)).split('\\').join('/')}`
  const preloads = entryOutput.imports
    .filter((imported) => imported.kind === 'import-statement' && !imported.external)
    .map((imported) => `<link rel="modulepreload" href="${toUrl(imported.path)}">`)
  // The entry imports no CSS: a stylesheet it named would block the first paint.
  if (entryOutput.cssBundle !== undefined) throw new Error('build: the client entry must not import CSS; client/styles.css is inlined')
  const style = `<style>${await pageStyle()}</style>`

  const favicon = await readFile(join(root, 'client/brand/media/favicon.svg'))
  const faviconName = `favicon-${contentHash(favicon)}.svg`
  await writeFile(join(assetsDir, faviconName), favicon)

  const template = await readFile(join(root, 'client/index.html'), 'utf8')
  const html = template
    // A function, so that no `$` in the CSS is read as a replacement pattern.
    .replace('<!--BUILD:HEAD-->', () => [
      `<link rel="icon" href="/assets/${faviconName}" type="image/svg+xml">`,
      style,
      ...preloads,
      '<!--THRESHOLD:VIEW-PRELOAD-->',
      `<script type="module" src="${toUrl(entryPath)}"></script>`
    ].filter(Boolean).join('\n    '))
    // The template's comments are for its readers, not for every page view; the edge's slots (<!--THRESHOLD:…-->) stay.
    .replace(/\n\s*<!--(?!THRESHOLD:)[\s\S]*?-->/g, '')
  await writeFile(join(publicDir, 'index.html'), html)

  const firstLoad = staticImports(metafile, entryPath)
  /** @type {Record<string, string[]>} */
  const viewPreloads = {}
  for (const [view, module] of Object.entries(VIEW_MODULES)) {
    const chunk = outputs.find(([, output]) => output.entryPoint === module)
    if (chunk === undefined) throw new Error(`build: the ${view} view (${module}) produced no chunk of its own`)
    viewPreloads[view] = [...staticImports(metafile, chunk[0])].filter((path) => !firstLoad.has(path)).map(toUrl)
  }
  await writeFile(join(publicDir, 'view-preloads.json'), JSON.stringify(viewPreloads))
}

/**
 * Writes a brotli and a gzip variant beside each compressible asset, where it is smaller; resolves with the bytes brotli saves.
 * @returns {Promise<number>}
 */
export async function precompress () {
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
