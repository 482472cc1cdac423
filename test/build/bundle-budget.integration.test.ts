import { build, type Metafile as EsbuildMetafile } from 'esbuild'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { firstLoadInOneChunk } from '../../build/first-load-chunk.mjs'
import { nativeStoreHook } from '../../build/native-store-hook.mjs'
import { workerAssets } from '../../build/worker-asset.mjs'
import { browserSkip, launchBrowser, waitForHydration } from '../fixtures/browsers/chromium.js'
import { TEST_GOOGLE_CLIENT_ID } from '../fixtures/google/google-identity.js'
import { startBuiltServer } from '../fixtures/servers/built-server.js'
import { buildEdge } from '../fixtures/servers/edge.js'

/**
 * The size budget of each opening view's first load: everything the page
 * fetches from its own origin before the network goes quiet, with no
 * interaction (HTML, CSS, JavaScript and the texts, gzip at level 9), and our
 * own code in it (everything but react, react-dom and scheduler). Measured in
 * real Chromium against the built edge, so a chunk the page loads at once (the
 * Google start chunk with GOOGLE_CLIENT_ID set) is counted as the browser
 * fetches it. Sizes are deterministic, so the budget fails the build when
 * broken. What moved the figures, and when: docs/performance.md, "The first
 * load's budget". Each budget is the figure reached plus under 1 KB of room.
 */
const BUDGETS: Readonly<Record<string, { readonly total: number, readonly own: number }>> = {
  login: { total: 95 * 1024, own: 24 * 1024 },
  register: { total: 95 * 1024, own: 24 * 1024 },
  resetPassword: { total: 95 * 1024, own: 24 * 1024 },
  setPassword: { total: 95 * 1024, own: 24 * 1024 },
  'login with Google': { total: 95 * 1024, own: 24 * 1024 }
}

/**
 * Each opening view as a visitor opens it, on the built server as it runs by default (its embedded
 * accounts service: passkeys offered, so the login view loads their chunk for the browser's autofill at
 * once; setPassword shown, the reset's completion being the service's), and the login view with
 * GOOGLE_CLIENT_ID set.
 */
const OPENINGS: ReadonlyArray<{ readonly name: string, readonly path: string, readonly google?: true }> = [
  { name: 'login', path: '/' },
  { name: 'register', path: '/?view=register' },
  { name: 'resetPassword', path: '/?view=resetPassword' },
  { name: 'setPassword', path: '/?view=setPassword&token=abc' },
  { name: 'login with Google', path: '/', google: true }
]

/** How long the network must be quiet before the first load counts as done (Playwright's networkidle is the same 500 ms). */
const QUIET_MS = 500

/** Each view's module (client/SignInPage.tsx viewParts, build/client.mjs VIEW_MODULES). */
const VIEW_MODULES: Readonly<Record<string, string>> = {
  login: 'client/sign-in/LoginView.tsx',
  register: 'client/registration/RegisterView.tsx',
  resetPassword: 'client/password-reset/ResetPasswordView.tsx',
  setPassword: 'client/password-reset/SetPasswordView.tsx'
}

/** What is not our own code. */
const THIRD_PARTY_OF_REACT = ['react', 'react-dom', 'react-dom/client', 'react/jsx-runtime', 'scheduler']

/** A first-load file this small may go uncompressed. */
const MAX_UNCOMPRESSED_BYTES = 200

const root = fileURLToPath(new URL('../../', import.meta.url))

interface Metafile {
  outputs: Record<string, { entryPoint?: string, imports: Array<{ path: string, kind: string, external?: boolean }>, inputs: Record<string, { bytesInOutput: number }>, cssBundle?: string }>
}

const meta = JSON.parse(readFileSync(`${root}dist/client-meta.json`, 'utf8')) as Metafile
const gzipBytes = (bytes: Buffer | string): number => gzipSync(bytes, { level: 9 }).length
const brotliBytes = (bytes: Buffer | string): number => brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`

/** `path` and every chunk it imports statically, and what those import. */
function staticClosure (metafile: Metafile, path: string, seen = new Set<string>()): Set<string> {
  if (seen.has(path)) return seen
  seen.add(path)
  for (const imported of metafile.outputs[path]!.imports) {
    if (imported.kind === 'import-statement' && imported.external !== true) staticClosure(metafile, imported.path, seen)
  }
  return seen
}

function outputOf (metafile: Metafile, entryPoint: string): string {
  const found = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint?.endsWith(entryPoint))
  if (found === undefined) throw new Error(`no output for ${entryPoint} in the metafile; run the build`)
  return found[0]
}

/**
 * The entry and every chunk it imports statically, its CSS, and the chunks of
 * `view` (the login view unless told): what a page of that view loads before it hydrates.
 */
function firstLoadOutputs (metafile: Metafile = meta, view = 'login'): string[] {
  const entry = outputOf(metafile, 'client/main.tsx')
  const scripts = staticClosure(metafile, entry)
  staticClosure(metafile, outputOf(metafile, VIEW_MODULES[view]!), scripts)
  const css = metafile.outputs[entry]!.cssBundle
  return [...scripts, ...(css === undefined ? [] : [css])]
}

/** One response the page fetched from its own origin: its path, its body's gzip -9 and brotli sizes. */
interface Fetched { readonly path: string, readonly gzip: number, readonly brotli: number }

/**
 * Opens `path` in Chromium and records every same-origin response until the page has hydrated and
 * then no request has been under way for QUIET_MS (what hydration's effects ask for comes after the
 * scripts' parse and the render, which on a busy machine outlast Playwright's networkidle).
 */
async function fetchedAtOnce (t: Test, base: string, path: string): Promise<Fetched[]> {
  const browser = await launchBrowser(t)
  // Reduced motion: the background video, fetched only once the page is idle, is decoration, not the page's load.
  const context = await browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 800 } })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const bodies: Array<Promise<Fetched>> = []
  let underWay = 0
  let lastActivity = Date.now()
  const settled = (): void => { underWay--; lastActivity = Date.now() }
  page.on('request', () => { underWay++; lastActivity = Date.now() })
  page.on('requestfailed', settled)
  page.on('requestfinished', settled)
  page.on('response', (response) => {
    const url = new URL(response.url())
    if (url.origin !== new URL(base).origin) return
    bodies.push(response.body().then((body) => ({ path: `${url.pathname}${url.search}`, gzip: gzipBytes(body), brotli: brotliBytes(body) })))
  })
  await page.goto(`${base}${path}`, { waitUntil: 'load' })
  await waitForHydration(page)
  while (underWay > 0 || Date.now() - lastActivity < QUIET_MS) await new Promise((resolve) => setTimeout(resolve, 50))
  return await Promise.all(bodies)
}

/** Our own code of the chunks a view fetched: the same entry points built with React left out, gzip. */
async function ownCodeBytes (fetchedScripts: readonly string[]): Promise<number> {
  const ownCode = await build({
    entryPoints: [`${root}client/main.tsx`],
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: `${root}budget-out`,
    write: false,
    metafile: true,
    minify: true,
    jsx: 'automatic',
    target: ['chrome92', 'edge92', 'firefox90', 'safari15', 'ios15'],
    define: { 'process.env.NODE_ENV': '"production"' },
    external: THIRD_PARTY_OF_REACT,
    loader: { '.mp4': 'file', '.webm': 'file', '.jpg': 'file', '.css': 'empty' },
    legalComments: 'none',
    // As build/client.mjs splits it: the first load in one chunk, the worker a script of its own.
    plugins: [firstLoadInOneChunk(`${root}client/start-page.tsx`), nativeStoreHook(), workerAssets(['chrome92'])],
    logLevel: 'silent'
  })
  const ownMeta = ownCode.metafile as EsbuildMetafile as Metafile
  // The fetched chunks as entry points (the page's entry, the view's, a lazy part loaded at once) and what they import.
  const entryPoints = fetchedScripts.map((path) => meta.outputs[`dist/public${path}`]?.entryPoint).filter((entryPoint) => entryPoint !== undefined)
  const own = new Set<string>()
  for (const entryPoint of entryPoints) staticClosure(ownMeta, outputOf(ownMeta, entryPoint), own)
  const paths = new Set([...own].map((path) => `${root}${path}`))
  return ownCode.outputFiles.filter((file) => paths.has(file.path)).reduce((sum, file) => sum + gzipBytes(Buffer.from(file.contents)), 0)
}

const sum = (files: readonly Fetched[], size: 'gzip' | 'brotli'): number => files.reduce((total, file) => total + file[size], 0)

t.test('each opening view\'s first load, everything fetched before the network is idle, stays within its budget', { skip: browserSkip }, async (t) => {
  const plain = await startBuiltServer(t)
  const withGoogle = await startBuiltServer(t, { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID })
  for (const opening of OPENINGS) {
    await t.test(opening.name, async (t) => {
      const base = opening.google === true ? withGoogle.base : plain.base
      const fetched = await fetchedAtOnce(t, base, opening.path)
      const page = fetched.find((file) => file.path === opening.path)
      t.ok(page, 'the page itself is counted')
      // Images are no part of the code's budget (and gzip makes them no smaller): the background's poster, and
      // the icon, which the browser asks for at a time of its own choosing.
      const counted = fetched.filter((file) => !/\.(jpg|webp|png|svg|mp4|webm)$/.test(file.path))
      const media = fetched.filter((file) => !counted.includes(file))
      const scripts = counted.filter((file) => file.path.endsWith('.js')).map((file) => file.path)
      const total = sum(counted, 'gzip')
      const own = await ownCodeBytes(scripts)
      const budget = BUDGETS[opening.name]!
      t.comment(`${opening.name}: ${counted.map((file) => `${file.path.replace(/^\/assets\//, '')} ${file.gzip}`).join(', ')} (gzip bytes)` +
        (media.length === 0 ? '' : `; media, not counted: ${media.map((file) => file.path.replace(/^\/assets\//, '')).join(', ')}`))
      t.comment(`${opening.name}: total ${kb(total)} (${total} bytes) gzip, ${kb(sum(counted, 'brotli'))} (${sum(counted, 'brotli')} bytes) brotli, of ${kb(budget.total)} (${budget.total}); ` +
        `our own code ${kb(own)} (${own} bytes) of ${kb(budget.own)} (${budget.own})`)
      t.ok(total <= budget.total, `total ${total} ≤ ${budget.total} bytes`)
      t.ok(own <= budget.own, `own code ${own} ≤ ${budget.own} bytes`)
      // What it hydrates from is named in the HTML, so that the browser fetches it all in parallel; the rest comes after hydration.
      const named = new Set([...(await (await fetch(`${base}${opening.path}`)).text()).matchAll(/(?:href|src)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]))
      const view = opening.google === true ? 'login' : opening.name
      const hydratesFrom = firstLoadOutputs(meta, view).filter((path) => path.endsWith('.js')).map((path) => path.replace(/^dist\/public/, ''))
      t.same(hydratesFrom.filter((path) => !named.has(path)), [], 'the HTML names every script the view hydrates from')
      t.same(hydratesFrom.filter((path) => !scripts.includes(path)), [], 'and each is counted')
      if (opening.google === true) {
        t.ok(scripts.some((path) => meta.outputs[`dist/public${path}`]?.entryPoint === 'client/google/google-start.ts'), 'the Google start chunk is counted')
      }
    })
  }
})

t.test('grpc-web and google-protobuf are only in the lazy domain-check chunk', async (t) => {
  const first = firstLoadOutputs()
  for (const path of first) {
    const inputs = Object.keys(meta.outputs[path]!.inputs)
    t.notOk(inputs.some((input) => /node_modules\/(grpc-web|google-protobuf)\//.test(input)), `${path} holds neither`)
  }
  const lazy = Object.entries(meta.outputs).filter(([path, output]) => !first.includes(path) &&
    Object.keys(output.inputs).some((input) => input.includes('node_modules/grpc-web/')))
  t.equal(lazy.length, 1, 'one chunk holds grpc-web')
  const [chunkPath] = lazy[0]!
  t.ok(Object.keys(meta.outputs[chunkPath]!.inputs).some((input) => input.includes('node_modules/google-protobuf/')), 'google-protobuf is beside it')
  t.comment(`lazy domain-check chunk: ${kb(gzipBytes(readFileSync(`${root}${chunkPath}`)))} gzip`)
})

t.test('the passkey ceremonies are only in the lazy passkey chunk', async (t) => {
  const first = firstLoadOutputs()
  for (const path of first) {
    // The hook that holds the passkeys' state and loads the chunk is the first load's; the rest of client/passkeys/ is not.
    const lazyPasskeyModule = (input: string): boolean => input.startsWith('client/passkeys/') && input !== 'client/passkeys/usePasskeys.ts'
    t.notOk(Object.keys(meta.outputs[path]!.inputs).some(lazyPasskeyModule), `${path} holds none of client/passkeys/ but its hook`)
  }
  const lazy = Object.entries(meta.outputs).filter(([path, output]) => !first.includes(path) &&
    Object.keys(output.inputs).some((input) => input === 'client/passkeys/passkey-ceremonies.ts'))
  t.equal(lazy.length, 1, 'one chunk holds them')
  t.comment(`lazy passkey chunk: ${kb(gzipBytes(readFileSync(`${root}${lazy[0]![0]}`)))} gzip`)
})

t.test('the second factor\'s steps are lazy, and the QR encoder is only in the enrolment chunk', async (t) => {
  const first = firstLoadOutputs()
  for (const path of first) {
    const inputs = Object.keys(meta.outputs[path]!.inputs)
    // The hook that holds the step and the "Not now" it reads are the first load's; the steps are not.
    const firstLoadModules = ['client/second-factor/not-now.ts', 'client/second-factor/useSecondFactor.ts']
    t.notOk(inputs.some((input) => input.startsWith('client/second-factor/') && !firstLoadModules.includes(input)), `${path} holds no second-factor step`)
    t.notOk(inputs.some((input) => input.includes('node_modules/uqr/')), `${path} holds no QR encoder`)
  }
  const holding = (file: string) => Object.entries(meta.outputs).filter(([, output]) => Object.keys(output.inputs).includes(file))
  const steps = holding('client/second-factor/SecondFactorSteps.tsx')
  const enrolment = holding('client/second-factor/Enrolment.tsx')
  t.equal(steps.length, 1, 'one chunk holds the steps')
  t.equal(enrolment.length, 1, 'one chunk holds the enrolment')
  t.ok(Object.keys(enrolment[0]![1].inputs).some((input) => input.includes('node_modules/uqr/')), 'the QR encoder is beside the enrolment')
  t.notOk(Object.keys(steps[0]![1].inputs).some((input) => input.includes('node_modules/uqr/')), 'and not beside the code step')
  // What a code step loads: its chunk and what it imports beyond the first load; an enrolment adds its own chunk.
  const lazyImports = (path: string): string[] => meta.outputs[path]!.imports
    .filter((imported) => imported.kind === 'import-statement' && !first.includes(imported.path)).map((imported) => imported.path)
  const size = (paths: string[]): number => paths.reduce((sum, path) => sum + gzipBytes(readFileSync(`${root}${path}`)), 0)
  const codeStep = [steps[0]![0], ...lazyImports(steps[0]![0])]
  const enrolmentOnly = [enrolment[0]![0], ...lazyImports(enrolment[0]![0])].filter((path) => !codeStep.includes(path))
  t.comment(`lazy second-factor chunks (gzip): the code step and the offer ${kb(size(codeStep))}; the enrolment with the QR encoder ${kb(size(enrolmentOnly))} more`)
})

/** A lazy part's own figure: the chunk holding `file` and what it imports beyond the first load, gzip (its view's first load is the login view's plus this). */
function lazyPartBytes (t: Test, file: string): number {
  const first = firstLoadOutputs()
  const holding = Object.entries(meta.outputs).filter(([path, output]) => path.endsWith('.js') && Object.keys(output.inputs).includes(file))
  t.equal(holding.length, 1, `one chunk holds ${file}`)
  t.notOk(first.includes(holding[0]![0]), 'not the first load')
  const paths = [holding[0]![0], ...meta.outputs[holding[0]![0]]!.imports
    .filter((imported) => imported.kind === 'import-statement' && !first.includes(imported.path)).map((imported) => imported.path)]
  return paths.reduce((sum, path) => sum + gzipBytes(readFileSync(`${root}${path}`)), 0)
}

t.test('registration, the password reset\'s views, the emailed code\'s steps and the last-used tag are lazy chunks', async (t) => {
  const first = firstLoadOutputs()
  // The emailed code's hook that holds the step is the first load's; its steps, calls and the fallback form are not.
  const lazyOnly = (input: string): boolean => input.startsWith('client/password-reset/') || input === 'client/registration/RegisterView.tsx' ||
    input === 'client/registration/useRegister.ts' || input === 'client/sign-in/LastUsedTag.tsx' ||
    (input.startsWith('client/email-codes/') && input !== 'client/email-codes/useEmailCode.ts')
  for (const path of first) {
    t.notOk(Object.keys(meta.outputs[path]!.inputs).some(lazyOnly), `${path} holds none of them`)
  }
  const figures = {
    register: lazyPartBytes(t, 'client/registration/RegisterView.tsx'),
    reset: lazyPartBytes(t, 'client/password-reset/ResetPasswordView.tsx'),
    set: lazyPartBytes(t, 'client/password-reset/SetPasswordView.tsx'),
    steps: lazyPartBytes(t, 'client/email-codes/EmailCodeSteps.tsx'),
    tag: lazyPartBytes(t, 'client/sign-in/LastUsedTag.tsx')
  }
  t.comment(`lazy views and parts (gzip, beyond the login view's first load): register ${figures.register} bytes, the reset request ${figures.reset}, ` +
    `the new password ${figures.set}, the emailed code's steps ${figures.steps}, the last-used tag ${figures.tag}`)
})

t.test('the page names only assets that exist, and every first-load file is precompressed', async (t) => {
  const app = await buildEdge(t)
  const html = (await app.inject({ url: '/' })).body
  for (const [, url] of html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)) {
    t.equal((await app.inject({ url: String(url) })).statusCode, 200, String(url))
  }
  for (const view of Object.keys(VIEW_MODULES)) {
    for (const path of firstLoadOutputs(meta, view)) {
      // The entry is a line that imports the first load's chunk (build/first-load-chunk.mjs): compressing it gains nothing, and build/client.mjs keeps no variant that is not smaller.
      if (readFileSync(`${root}${path}`).length <= MAX_UNCOMPRESSED_BYTES) continue
      t.ok(readFileSync(`${root}${path}.br`).length > 0, `${path}.br`)
      t.ok(readFileSync(`${root}${path}.gz`).length > 0, `${path}.gz`)
    }
  }
  // Shared code in the entry's one chunk (client/page/shared-view-modules.ts), the view's in its own.
  t.equal(firstLoadOutputs(meta, 'login').filter((path) => path.endsWith('.js')).length, 3, 'the login view\'s first load is its entry, the shared chunk and the view\'s')
})

t.test('the challenge\'s solver, its worker, the widget adapter and the breached-password notice are only in lazy files', async (t) => {
  const first = firstLoadOutputs()
  const lazyOnly = (input: string): boolean => input.startsWith('client/challenge/') || input.includes('node_modules/altcha-lib/') ||
    input === 'client/breached-passwords/BreachedPasswordNotice.tsx' || input === 'client/languages/later-page-texts.ts'
  for (const path of first) {
    const inputs = Object.keys(meta.outputs[path]!.inputs)
    t.notOk(inputs.some(lazyOnly), `${path} holds none of them`)
  }
  const holding = (file: string) => Object.entries(meta.outputs).filter(([path, output]) => path.endsWith('.js') && Object.keys(output.inputs).includes(file))
  const solver = holding('client/challenge/solve-pow.ts')
  t.equal(solver.length, 1, 'one chunk holds the solver')
  t.ok(Object.keys(solver[0]![1].inputs).some((input) => input.includes('node_modules/altcha-lib/')), 'altcha-lib is beside it')
  const worker = Object.keys(meta.outputs).filter((path) => /\/assets\/pow-worker-[A-Z0-9]+\.js$/.test(path))
  t.equal(worker.length, 1, 'the worker is a script of its own, named by its content')
  const workerSource = readFileSync(`${root}${worker[0]!}`, 'utf8')
  t.notMatch(workerSource, /^\s*(import|export)\b/m, 'a classic script: no module syntax')
  t.ok(readFileSync(`${root}${solver[0]![0]}`, 'utf8').includes(worker[0]!.replace(/^dist\/public/, '')), 'the solver names it by its hashed URL')
  t.equal(holding('client/challenge/widget-token.ts').filter(([path]) => path === solver[0]![0]).length, 0, 'the widget adapter is not in the solver\'s chunk')
  t.equal(holding('client/breached-passwords/BreachedPasswordNotice.tsx').length, 1, 'one chunk holds the notice')
  t.comment(`lazy challenge chunk ${kb(gzipBytes(readFileSync(`${root}${solver[0]![0]}`)))}, worker ${kb(gzipBytes(workerSource))}, notice ${kb(gzipBytes(readFileSync(`${root}${holding('client/breached-passwords/BreachedPasswordNotice.tsx')[0]![0]}`)))} (gzip)`)
})
