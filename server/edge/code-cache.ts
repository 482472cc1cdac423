import { createHash } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { constants, Script } from 'node:vm'

/**
 * Whether a bundle started from V8's code cache: `used`, or `absent` (none for
 * this Node) or `rejected` (made from another version of the bundle, damaged,
 * or refused by V8 for other V8 flags), in which case the bundle was compiled
 * from its source.
 */
export type CodeCacheStatus = 'used' | 'absent' | 'rejected'

export interface LoadedBundle {
  /** What the bundle put on `module.exports`. */
  readonly exports: unknown
  readonly codeCache: CodeCacheStatus
  /**
   * Writes the cache from what V8 has compiled so far: call it once the
   * process has run its start, so that the cache holds the start's functions
   * and not only the bundle's top level.
   */
  writeCodeCache: () => void
}

/**
 * The cache file for a bundle on this Node. V8 accepts a cache only from its
 * own version (and refuses it otherwise), so each version and architecture
 * gets its own file, and a dist/ copied to another Node simply finds none.
 */
export function codeCachePathFor (bundlePath: string): string {
  return `${bundlePath}.${process.arch}-v8-${process.versions.v8}.codecache`
}

// Node's CommonJS wrapper, opened on a line of its own so that the bundle's
// line numbers (stack traces, source maps) stay those of the file.
const WRAPPER_OPENING = '(function (exports, require, module, __filename, __dirname) {\n'
const WRAPPER_CLOSING = '\n})'

/**
 * A cache file starts with two SHA-256 digests: of the bundle it was made
 * from, and of the V8 data after them. V8 checks only the source's length (it
 * would run a cache made from another bundle of the same length) and, in
 * release builds, no checksum of its data (a damaged file crashes the
 * process). Hashing the 2 MB bundle and its cache takes about 4 ms.
 */
const DIGEST_BYTES = 32
const HEADER_BYTES = 2 * DIGEST_BYTES

function digestOf (bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest()
}

/** The V8 data of a cache file made from the bundle with this digest, or undefined if it is not one. */
function verifiedCacheData (cacheFile: Buffer, bundleDigest: Buffer): Buffer | undefined {
  if (cacheFile.length <= HEADER_BYTES) return undefined
  const data = cacheFile.subarray(HEADER_BYTES)
  const fits = bundleDigest.equals(cacheFile.subarray(0, DIGEST_BYTES)) &&
    digestOf(data).equals(cacheFile.subarray(DIGEST_BYTES, HEADER_BYTES))
  return fits ? data : undefined
}

/**
 * Runs a CommonJS bundle as Node's loader would, but compiled through a
 * `vm.Script` given the bundle's V8 code cache when there is one.
 *
 * Why: on a small machine V8 spends a third of the edge's start parsing and
 * compiling its 2 MB bundle. With the cache V8 takes the bytecode instead;
 * Node 22 offers this as `module.enableCompileCache()`, Node 20 does not.
 * A missing or refused cache costs only that compile: the bundle runs the
 * same either way.
 */
export function loadBundleWithCodeCache (bundlePath: string): LoadedBundle {
  const bytes = readFileSync(bundlePath)
  const digest = digestOf(bytes)
  const cachePath = codeCachePathFor(bundlePath)
  let cacheFile: Buffer | undefined
  try {
    cacheFile = readFileSync(cachePath)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const cachedData = cacheFile === undefined ? undefined : verifiedCacheData(cacheFile, digest)
  const script = new Script(WRAPPER_OPENING + bytes.toString('utf8') + WRAPPER_CLOSING, {
    filename: bundlePath,
    lineOffset: -1,
    ...(cachedData === undefined ? {} : { cachedData }),
    // A dynamic import() inside the bundle resolves as it would in a file Node loaded.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const codeCache: CodeCacheStatus = cacheFile === undefined ? 'absent' : cachedData === undefined || script.cachedDataRejected === true ? 'rejected' : 'used'

  const module = { exports: {} as unknown }
  const wrapper = script.runInThisContext() as (...parameters: unknown[]) => void
  wrapper.call(module.exports, module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath))

  return {
    exports: module.exports,
    codeCache,
    writeCodeCache () {
      // Written aside and renamed, so that a start running meanwhile reads
      // the old file or the new one, never half of one.
      const partial = `${cachePath}.${process.pid}.partial`
      try {
        const data = script.createCachedData()
        writeFileSync(partial, Buffer.concat([digest, digestOf(data), data]))
        renameSync(partial, cachePath)
      } finally {
        rmSync(partial, { force: true })
      }
    }
  }
}
