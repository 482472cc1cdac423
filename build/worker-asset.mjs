// An esbuild plugin for the client build (build.mjs), the page renderer's and the bundle budget's
// (test/build/bundle-budget.integration.test.ts): `import url from './pow-worker.js?worker'` gives the URL of
// that module built as a Web Worker script of its own.
//
// esbuild has no worker entry points of its own kind. The module is bundled here (every import in,
// a classic script: Firefox before 114 has no module workers), and handed to the file loader, which
// writes it under the build's asset names, content-hashed (`pow-worker-HASH.js` in /assets/), and
// puts that URL where the import was. The edge serves it as every asset (server/edge/page/static-files.ts);
// the page's CSP lets it run: no worker-src, so script-src's 'self' governs workers.

import { build } from 'esbuild'
import { basename, dirname, join } from 'node:path'

/** @import { Plugin } from 'esbuild' */

const WORKER_QUERY = '?worker'

/**
 * The plugin; `target` is the browsers the worker is built for (the client's).
 * @param {string[]} target
 * @returns {Plugin}
 */
export function workerAssets (target) {
  return {
    name: 'worker-assets',
    setup (builder) {
      builder.onResolve({ filter: /\?worker$/ }, async (args) => {
        const resolved = await builder.resolve(args.path.slice(0, -WORKER_QUERY.length), { kind: 'import-statement', importer: args.importer, resolveDir: args.resolveDir })
        if (resolved.errors.length > 0) return { errors: resolved.errors }
        // The asset's name is the path's: a `.js` one, whatever the source's extension.
        return { path: join(dirname(resolved.path), basename(resolved.path).replace(/\.[cm]?[jt]sx?$/, '.js')), namespace: 'worker-asset', pluginData: resolved.path }
      })
      builder.onLoad({ filter: /.*/, namespace: 'worker-asset' }, async (args) => {
        const result = await build({
          entryPoints: [args.pluginData],
          bundle: true,
          write: false,
          format: 'iife',
          platform: 'browser',
          target,
          minify: true,
          legalComments: 'eof',
          metafile: true,
          logLevel: 'warning'
        })
        const [script] = result.outputFiles
        if (script === undefined) return { errors: [{ text: `worker-assets: ${args.pluginData} built to no script` }] }
        return { contents: script.contents, loader: 'file', watchFiles: Object.keys(result.metafile.inputs) }
      })
    }
  }
}
