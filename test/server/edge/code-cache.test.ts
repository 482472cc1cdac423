import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { codeCachePathFor, loadBundleWithCodeCache, type CodeCacheStatus } from '../../../server/edge/code-cache.js'

const LOAD_BUNDLE = fileURLToPath(new URL('../../fixtures/load-bundle.ts', import.meta.url))

/**
 * Loads the bundle in a fresh process, as a start does (this process's V8
 * would reuse what it compiled before and never look at the cache). Of this
 * process's Node options only the TypeScript loader is passed on: the
 * coverage and mocking hooks would triple each start.
 */
const NODE_OPTIONS_FOR_TYPESCRIPT = process.execArgv.filter((option) => option.includes('@tapjs/typescript'))

function loadInFreshProcess (bundle: string, { write = false, nodeFlags = [] as string[] } = {}): { codeCache: CodeCacheStatus, exports: { squares: number[] } } {
  const child = spawnSync(process.execPath, [...nodeFlags, ...NODE_OPTIONS_FOR_TYPESCRIPT, LOAD_BUNDLE, bundle, ...(write ? ['--write-code-cache'] : [])], { encoding: 'utf8' })
  if (child.status !== 0) throw new Error(`load-bundle failed: ${child.stderr}`)
  return JSON.parse(child.stdout)
}

/** A CommonJS bundle in a folder of its own, using what Node's wrapper provides. */
function writeBundle (t: import('tap').Test, body: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-code-cache-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const bundle = join(folder, 'bundle.cjs')
  writeFileSync(bundle, body)
  return bundle
}

const BUNDLE = [
  "const { join } = require('node:path')",
  'function square (n) { return n * n }',
  'module.exports = { squares: [1, 2, 3].map(square), here: join(__dirname, "x"), file: __filename, self: this === exports, fail () { throw new Error("from the bundle") } }'
].join('\n')

interface Exported { squares: number[], here: string, file: string, self: boolean, fail: () => never }

t.test('without a cache the bundle runs from its source, with what Node gives a CommonJS file', async (t) => {
  const bundle = writeBundle(t, BUNDLE)
  const loaded = loadBundleWithCodeCache(bundle)
  t.equal(loaded.codeCache, 'absent')
  const exported = loaded.exports as Exported
  t.same(exported.squares, [1, 4, 9])
  t.equal(exported.file, bundle)
  t.equal(exported.here, join(bundle, '..', 'x'))
  t.equal(exported.self, true, 'this is module.exports at the top level')
})

t.test('a written cache is used by the next start, which runs the same', async (t) => {
  const bundle = writeBundle(t, BUNDLE)
  t.equal(loadInFreshProcess(bundle, { write: true }).codeCache, 'absent')
  t.ok(existsSync(codeCachePathFor(bundle)))
  t.same(readdirSync(join(bundle, '..')).sort(), ['bundle.cjs', codeCachePathFor(bundle).split('/').pop()].sort(), 'nothing else is left beside it')

  const again = loadInFreshProcess(bundle)
  t.equal(again.codeCache, 'used')
  t.same(again.exports.squares, [1, 4, 9])
})

t.test('stack traces name the bundle and its own line numbers, wrapper or not', async (t) => {
  const bundle = writeBundle(t, BUNDLE)
  const { fail } = loadBundleWithCodeCache(bundle).exports as Exported
  const error = t.throws(() => fail()) as Error
  t.match(error.stack, `${bundle}:3:`)
})

t.test('the cache file is named for this Node, so another Node finds none', async (t) => {
  t.equal(codeCachePathFor('/app/dist/server/edge.cjs'), `/app/dist/server/edge.cjs.${process.arch}-v8-${process.versions.v8}.codecache`)
})

/** A copy of `bytes` with 16 bytes inverted from `from`. */
function flipBytes (bytes: Buffer, from: number): Buffer {
  return Buffer.from(bytes.map((byte, index) => index >= from && index < from + 16 ? byte ^ 0xff : byte))
}

t.test('a damaged cache is refused by V8 and the bundle still runs from its source', async (t) => {
  const bundle = writeBundle(t, BUNDLE)
  loadInFreshProcess(bundle, { write: true })
  const cache = readFileSync(codeCachePathFor(bundle))
  for (const [name, damaged] of [
    ['garbage', Buffer.from('not a code cache at all')],
    ['cut short', cache.subarray(0, cache.length >> 1)],
    ['only its digests', cache.subarray(0, 64)],
    // V8 checks its header, but not its data: flipped bytes there would crash the process.
    ['bytes flipped in V8\'s header', flipBytes(cache, 70)],
    ['bytes flipped in V8\'s data', flipBytes(cache, cache.length - 40)],
    ['empty', Buffer.alloc(0)]
  ] as const) {
    writeFileSync(codeCachePathFor(bundle), damaged)
    const loaded = loadInFreshProcess(bundle)
    t.equal(loaded.codeCache, 'rejected', name)
    t.same(loaded.exports.squares, [1, 4, 9], `${name}: runs`)
  }
})

t.test('a cache written under other V8 flags is refused, and the bundle runs from its source', async (t) => {
  const bundle = writeBundle(t, BUNDLE)
  loadInFreshProcess(bundle, { write: true, nodeFlags: ['--max-old-space-size=300'] })
  t.equal(loadInFreshProcess(bundle, { nodeFlags: ['--max-old-space-size=300'] }).codeCache, 'used', 'the same flags')
  const loaded = loadInFreshProcess(bundle)
  t.equal(loaded.codeCache, 'rejected', 'without them')
  t.same(loaded.exports.squares, [1, 4, 9])
})

t.test('a cache from another version of the bundle is refused, not run, even at the same length', async (t) => {
  const bundle = writeBundle(t, BUNDLE)
  loadInFreshProcess(bundle, { write: true })
  const changed = BUNDLE.replace('n * n', 'n + n')
  t.equal(changed.length, BUNDLE.length, 'V8 alone would take this cache for this source')
  writeFileSync(bundle, changed)
  const loaded = loadInFreshProcess(bundle)
  t.equal(loaded.codeCache, 'rejected')
  t.same(loaded.exports.squares, [2, 4, 6], 'the new source runs')
})

t.test('a bundle that throws while loading fails the load with its own error', async (t) => {
  const bundle = writeBundle(t, 'throw new Error("bad configuration in the bundle")')
  t.throws(() => loadBundleWithCodeCache(bundle), { message: 'bad configuration in the bundle' })
})

t.test('a missing bundle is a clear error', async (t) => {
  t.throws(() => loadBundleWithCodeCache(join(tmpdir(), 'no-such-bundle.cjs')), { code: 'ENOENT' })
})
