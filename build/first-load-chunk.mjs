// An esbuild plugin for the client build (build.mjs) and the bundle budget's own-code build
// (test/build/bundle-budget.integration.test.ts): the whole first load in one chunk.
//
// With code splitting, esbuild puts each module in a chunk named by the set of entry
// points (the page's entry and every import() target) that reach it. The lazy parts
// (passkeys, the second factor's steps, the enrolment, the domain check) each use a
// different slice of the page's modules, so the first load came in seven files, most of
// them small, each compressed on its own and each a request: 1.2 KB of gzip more than the
// same code in one file. Every lazy part that also reaches the page's start
// (`startModule`, which has no side effects: client/main.tsx is what calls it) gives
// every first-load module the same set of entry points, hence one chunk; what only a lazy
// part uses stays in its own chunk. It costs nothing at run time: a lazy part loads after
// the first load, which it then finds in the module map.

import { readFile } from 'node:fs/promises'
import { extname } from 'node:path'

/** @import { Loader, Plugin } from 'esbuild' */

/**
 * The plugin; `startModule` is the absolute path of the module every import() target is made to import.
 * @param {string} startModule
 * @returns {Plugin}
 */
export function firstLoadInOneChunk (startModule) {
  return {
    name: 'first-load-in-one-chunk',
    setup (builder) {
      /** @type {Set<string>} */
      const lazyModules = new Set()
      builder.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData === 'first-load-in-one-chunk') return undefined
        const resolved = await builder.resolve(args.path, {
          kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'first-load-in-one-chunk'
        })
        if (resolved.errors.length === 0 && !resolved.path.includes('node_modules')) lazyModules.add(resolved.path)
        return resolved.errors.length === 0 ? { path: resolved.path, external: resolved.external } : undefined
      })
      builder.onLoad({ filter: /\.tsx?$/ }, async (args) => {
        if (!lazyModules.has(args.path)) return undefined
        const source = await readFile(args.path, 'utf8')
        // The filter lets only .ts and .tsx through, both loaders of esbuild's.
        const loader = /** @type {Loader} */ (extname(args.path).slice(1))
        return { contents: `${source}\nimport ${JSON.stringify(startModule)}\n`, loader }
      })
    }
  }
}
