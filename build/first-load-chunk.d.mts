import type { Plugin } from 'esbuild'

/** The esbuild plugin that keeps the client's first load in one chunk (build/first-load-chunk.mjs says why). */
export function firstLoadInOneChunk (startModule: string): Plugin
