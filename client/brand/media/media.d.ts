// esbuild's file loader turns these imports into the hashed URL of the copied file.
declare module '*.mp4' { const url: string; export default url }
declare module '*.webm' { const url: string; export default url }
declare module '*.jpg' { const url: string; export default url }
