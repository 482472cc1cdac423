// An esbuild plugin for the client build (build/client.mjs) and the bundle budget's own-code build
// (test/build/bundle-budget.integration.test.ts): swr's `use-sync-external-store/shim` answered by
// React's own useSyncExternalStore. The shim is for React before 18; on 18 and later it hands over to
// React's at run time, but its fallback and CommonJS wrapper were still in every first load
// (828 bytes minified). The page runs React 19 only (package.json), so the shim's fallback never runs.

/** @import { Plugin } from 'esbuild' */

const SHIM = /^use-sync-external-store\/shim(\/index\.js)?$/
const NAMESPACE = 'native-store-hook'

/** @returns {Plugin} */
export function nativeStoreHook () {
  return {
    name: 'native-store-hook',
    setup (builder) {
      builder.onResolve({ filter: SHIM }, (args) => ({ path: args.path, namespace: NAMESPACE }))
      builder.onLoad({ filter: /.*/, namespace: NAMESPACE }, () => ({
        contents: "export { useSyncExternalStore } from 'react'",
        loader: 'js',
        resolveDir: process.cwd()
      }))
    }
  }
}
