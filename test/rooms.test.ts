// The floor plan (docs/architecture.md), as a test: which room may import
// which. Data flows one way, page → edge → accounts service; the edge reaches
// the reference service only through the module that starts it; code both
// sides use lives in common/, which is plain TypeScript for any runtime.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** The rooms, most specific first: a file belongs to the first whose folder holds it. */
const ROOMS = ['common', 'client', 'proto', 'server/shared', 'server/edge', 'server/reference', 'conformance', 'examples'] as const
type Room = typeof ROOMS[number]

/** The one edge module that starts the reference services (and may see them). */
const REFERENCE_STARTER = 'server/edge/upstream/embedded-services.ts'

/** The rooms each room may import from (besides packages and Node's own modules). */
const MAY_IMPORT: Record<Room, readonly Room[]> = {
  common: ['common'],
  client: ['client', 'common', 'proto'],
  proto: ['proto'],
  'server/shared': ['server/shared', 'common'],
  'server/edge': ['server/edge', 'server/shared', 'common', 'proto'],
  'server/reference': ['server/reference', 'server/shared', 'common', 'proto'],
  // A black box's check: it reaches any backend, the reference service included, over HTTP only.
  conformance: ['conformance', 'server/shared', 'common'],
  // An adopter copies an example out of the repository: it stands alone.
  examples: ['examples']
}

interface ImportEdge {
  /** Repository-relative paths. */
  readonly from: string
  readonly to: string
}

function roomOf (path: string): Room | null {
  return ROOMS.find((room) => path === room || path.startsWith(`${room}/`)) ?? null
}

/** What is wrong with one import, or null. */
function boundaryViolation ({ from, to }: ImportEdge): string | null {
  const fromRoom = roomOf(from)
  const toRoom = roomOf(to)
  if (fromRoom === null) return null
  if (toRoom === null) return `${from} imports ${to}, which is in no room`
  if (MAY_IMPORT[fromRoom].includes(toRoom)) return null
  if (from === REFERENCE_STARTER && toRoom === 'server/reference') return null
  return `${from} (${fromRoom}) may not import ${to} (${toRoom})`
}

/** Packages and built-ins a room may not use: common/ runs in the browser and on Node alike. */
function packageViolation (from: string, specifier: string): string | null {
  if (roomOf(from) === 'common') return `${from} imports ${specifier}: common/ imports only common/`
  return null
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"\n]+)\1/g

function sourceFiles (folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|tsx|mts|cts|cjs|mjs)$/.test(name) && !name.endsWith('.d.ts'))
    .map((name) => join(folder, name))
}

/** The file a relative specifier names, as a repository-relative path (.js written for .ts, as NodeNext asks). */
function resolveSpecifier (from: string, specifier: string): string {
  const target = relative(ROOT, resolve(ROOT, dirname(from), specifier))
  return target.replace(/\.js$/, '.ts')
}

function importsOf (path: string): Array<{ specifier: string }> {
  const text = readFileSync(join(ROOT, path), 'utf8')
  return [...text.matchAll(SPECIFIER)].map((match) => ({ specifier: match[2]! }))
}

function treeViolations (): string[] {
  const problems: string[] = []
  for (const room of ['common', 'client', 'proto', 'server', 'conformance', 'examples']) {
    for (const from of sourceFiles(room)) {
      // A file beside the rooms (server/ flat again) would be checked by no rule.
      if (roomOf(from) === null) problems.push(`${from} is in no room`)
      for (const { specifier } of importsOf(from)) {
        const problem = specifier.startsWith('.')
          ? boundaryViolation({ from, to: resolveSpecifier(from, specifier) })
          : packageViolation(from, specifier)
        if (problem !== null) problems.push(problem)
      }
    }
  }
  return problems
}

t.test('no import in the tree crosses a boundary', async (t) => {
  t.same(treeViolations(), [])
})

t.test('the rules refuse the crossings the floor plan forbids', async (t) => {
  const refused: ImportEdge[] = [
    { from: 'server/edge/config.ts', to: 'client/page/address-bar.ts' },
    { from: 'server/reference/config.ts', to: 'server/edge/config.ts' },
    { from: 'server/edge/run-edge.ts', to: 'server/reference/services.ts' },
    { from: 'server/shared/logger.ts', to: 'server/edge/config.ts' },
    { from: 'common/http/hosts.ts', to: 'client/components/constants.ts' },
    { from: 'client/SignInPage.tsx', to: 'server/edge/config.ts' },
    { from: 'server/edge/app.ts', to: 'bench/tools.mjs' },
    { from: 'conformance/suite.ts', to: 'server/reference/sign-in/password-sign-in.ts' },
    { from: 'conformance/answers.ts', to: 'client/http/post-json.ts' },
    { from: 'conformance/suite.ts', to: 'server/edge/upstream/json-answers.ts' },
    { from: 'examples/accounts-backend/server.ts', to: 'server/shared/logger.ts' },
    { from: 'server/edge/app.ts', to: 'conformance/suite.ts' }
  ]
  for (const edge of refused) t.not(boundaryViolation(edge), null, `${edge.from} → ${edge.to}`)
  t.not(packageViolation('common/http/hosts.ts', 'node:net'), null, 'common/ uses no Node module')
  t.not(packageViolation('common/http/hosts.ts', 'react'), null, 'common/ uses no package')
})

t.test('a source file outside every room is a finding', async (t) => {
  t.equal(roomOf('server/main.ts'), null, 'server/ itself holds only rooms')
  t.equal(roomOf('server/edge/main.ts'), 'server/edge')
  t.equal(roomOf('server/edgeless.ts'), null, 'a name that merely starts like a room is no room')
})

t.test('the rules allow what the floor plan allows', async (t) => {
  const allowed: ImportEdge[] = [
    { from: REFERENCE_STARTER, to: 'server/reference/config.ts' },
    { from: 'server/edge/config.ts', to: 'common/http/hosts.ts' },
    { from: 'server/reference/config.ts', to: 'server/shared/env-parsing.ts' },
    { from: 'client/main.tsx', to: 'common/page/runtime-config.ts' },
    { from: 'client/domain-check/check-domain.ts', to: 'proto/edgeauth/v1/edge_auth_metadata_service.ts' },
    { from: 'conformance/answers.ts', to: 'server/shared/accounts-contract.ts' },
    { from: 'conformance/suite.ts', to: 'common/http/accounts-paths.ts' }
  ]
  for (const edge of allowed) t.equal(boundaryViolation(edge), null, `${edge.from} → ${edge.to}`)
  t.equal(packageViolation('server/edge/app.ts', 'fastify'), null)
})

t.test('the specifier reader finds static, dynamic, re-exported and required imports', async (t) => {
  const found = [...`
    import a from './a.js'
    import type { B } from "../b.js"
    export { c } from './c.js'
    const d = await import('./d.js')
    const e = require('./e.cjs')
    import './f.css'
  `.matchAll(SPECIFIER)].map((match) => match[2])
  t.same(found, ['./a.js', '../b.js', './c.js', './d.js', './e.cjs', './f.css'])
})

t.test('server, conformance and common code are type-checked without the DOM library', async (t) => {
  const libOf = (path: string): string[] => {
    // tsconfig allows comments; ours are whole lines.
    const text = readFileSync(join(ROOT, path), 'utf8').split('\n').filter((line) => !line.trim().startsWith('//')).join('\n')
    return (JSON.parse(text) as { compilerOptions: { lib: string[] } }).compilerOptions.lib
  }
  for (const config of ['server/tsconfig.json', 'common/tsconfig.json', 'conformance/tsconfig.json']) {
    t.notOk(libOf(config).some((lib) => lib.toLowerCase().startsWith('dom')), `${config} has no DOM library`)
  }
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  t.match(scripts.typecheck, /-p server\b/, 'npm run typecheck checks server/ on its own')
  t.match(scripts.typecheck, /-p common\b/, 'npm run typecheck checks common/ on its own')
  t.match(scripts.typecheck, /-p conformance\b/, 'npm run typecheck checks conformance/ on its own')
})
