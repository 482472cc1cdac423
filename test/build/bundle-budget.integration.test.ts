import { build } from 'esbuild'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { firstLoadInOneChunk } from '../../build/first-load-chunk.mjs'
import { workerAssets } from '../../build/worker-asset.mjs'
import { buildEdge } from '../fixtures/servers/edge.js'

/**
 * The size budget of the first load of the login view: HTML, CSS and
 * JavaScript, gzip, ≤ 95 KB in all; our own code (everything but react and
 * react-dom) ≤ 24 KB. grpc-web and google-protobuf only in the lazy chunk.
 * Sizes are deterministic, so the budget fails the build when broken. What
 * moved the figures, and when: docs/performance.md, "The first load's budget".
 */
const BUDGET_TOTAL_BYTES = 95 * 1024
const BUDGET_OWN_CODE_BYTES = 24.0 * 1024

/** A first-load file this small may go uncompressed. */
const MAX_UNCOMPRESSED_BYTES = 200

const root = fileURLToPath(new URL('../../', import.meta.url))

interface Metafile {
  outputs: Record<string, { entryPoint?: string, imports: Array<{ path: string, kind: string, external?: boolean }>, inputs: Record<string, { bytesInOutput: number }>, cssBundle?: string }>
}

const meta = JSON.parse(readFileSync(`${root}dist/client-meta.json`, 'utf8')) as Metafile
const gzipBytes = (bytes: Buffer | string): number => gzipSync(bytes, { level: 9 }).length
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`

/** The entry and every chunk it imports statically (what the login view loads before it can run), and its CSS. */
function firstLoadOutputs (metafile: Metafile = meta): string[] {
  const entry = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint?.endsWith('client/main.tsx'))
  if (entry === undefined) throw new Error('no client entry in the metafile; run the build')
  const seen = new Set<string>()
  const visit = (path: string): void => {
    if (seen.has(path)) return
    seen.add(path)
    for (const imported of metafile.outputs[path]!.imports) {
      if (imported.kind === 'import-statement' && imported.external !== true) visit(imported.path)
    }
  }
  visit(entry[0])
  return [...seen, ...(entry[1].cssBundle === undefined ? [] : [entry[1].cssBundle])]
}

t.test('the first load of the login view stays within the size budget', async (t) => {
  const app = await buildEdge(t)
  const html = (await app.inject({ url: '/' })).body
  const outputs = firstLoadOutputs()
  const rows = outputs.map((path) => [path.replace(/^.*\/assets\//, ''), gzipBytes(readFileSync(`${root}${path}`))] as const)
  const htmlBytes = gzipBytes(html)
  const total = htmlBytes + rows.reduce((sum, [, bytes]) => sum + bytes, 0)

  // Our own code: the same entry bundled with React left out, gzip.
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
    external: ['react', 'react-dom', 'react-dom/client', 'react/jsx-runtime', 'scheduler'],
    loader: { '.mp4': 'file', '.webm': 'file', '.jpg': 'file', '.css': 'empty' },
    legalComments: 'none',
    // As build/client.mjs splits it: the first load in one chunk, the worker a script of its own.
    plugins: [firstLoadInOneChunk(`${root}client/start-page.tsx`), workerAssets(['chrome92'])],
    logLevel: 'silent'
  })
  const ownFirstLoad = new Set(firstLoadOutputs(ownCode.metafile as Metafile).map((path) => `${root}${path}`))
  const ownBytes = ownCode.outputFiles.filter((file) => ownFirstLoad.has(file.path))
    .reduce((sum, file) => sum + gzipBytes(Buffer.from(file.contents)), 0)

  t.comment(`first load of the login view (gzip): HTML ${kb(htmlBytes)}, ${rows.map(([name, bytes]) => `${name} ${kb(bytes)}`).join(', ')}`)
  t.comment(`total ${kb(total)} (${total} bytes) of ${kb(BUDGET_TOTAL_BYTES)} (${BUDGET_TOTAL_BYTES}); our own code (all but react and react-dom) ${kb(ownBytes)} (${ownBytes} bytes) of ${kb(BUDGET_OWN_CODE_BYTES)}`)
  t.ok(total <= BUDGET_TOTAL_BYTES, `total ${kb(total)} ≤ ${kb(BUDGET_TOTAL_BYTES)}`)
  t.ok(ownBytes <= BUDGET_OWN_CODE_BYTES, `own code ${kb(ownBytes)} ≤ ${kb(BUDGET_OWN_CODE_BYTES)}`)
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
  for (const path of firstLoadOutputs()) {
    // The entry is a line that imports the first load's chunk (build/first-load-chunk.mjs): compressing it gains nothing, and build/client.mjs keeps no variant that is not smaller.
    if (readFileSync(`${root}${path}`).length <= MAX_UNCOMPRESSED_BYTES) continue
    t.ok(readFileSync(`${root}${path}.br`).length > 0, `${path}.br`)
    t.ok(readFileSync(`${root}${path}.gz`).length > 0, `${path}.gz`)
  }
  t.ok(firstLoadOutputs().filter((path) => path.endsWith('.js')).length <= 2, 'the first load is its entry and one chunk')
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
