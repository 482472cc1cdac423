// worker-asset.mjs builds a `?worker` import as a Web Worker script of its own and gives its hashed URL.
declare module '*?worker' { const url: string; export default url }
