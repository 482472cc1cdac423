import type { Plugin } from 'esbuild'

/** The esbuild plugin of build/worker-asset.mjs: a `?worker` import is the hashed URL of that module built as a Web Worker script. */
export function workerAssets (target: string[]): Plugin
