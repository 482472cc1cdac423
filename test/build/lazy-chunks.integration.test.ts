import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { buildEdge } from '../fixtures/servers/edge.js'
import { firstLoadOutputs, gzipBytes, kb, meta, root, VIEW_MODULES } from '../fixtures/build/client-meta.js'

/**
 * What stays out of the first load: the parts each a chunk loaded only when needed, and the files
 * the page names. Each view's first load and its budget: bundle-budget.integration.test.ts (a file
 * of its own: its Chromium runs took most of tap's limit a file on a loaded two-core machine).
 */

/** A first-load file this small may go uncompressed. */
const MAX_UNCOMPRESSED_BYTES = 200

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
