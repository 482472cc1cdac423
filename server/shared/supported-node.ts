/**
 * The oldest Node the server runs on, as package.json's engines says:
 * better-sqlite3 13 needs Node-API 10 (Node 22.14; on Node 20 it crashes the
 * reference service at its first query), and cookie 2 and content-disposition
 * 3, under Fastify, need Node 22.
 */
export const OLDEST_SUPPORTED_NODE = { major: 22, minor: 14 } as const

/** Why this Node cannot run the server, or null when it can. */
export function unsupportedNodeReason (version: string = process.versions.node): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  const { major: oldestMajor, minor: oldestMinor } = OLDEST_SUPPORTED_NODE
  if (major > oldestMajor || (major === oldestMajor && minor >= oldestMinor)) return null
  return `Node ${version} is too old: the server needs Node ${oldestMajor}.${oldestMinor} or later (Node 24 LTS is what it is tested on). ` +
    '`npm start` runs the project\'s own Node; to run dist/server/main.js directly, use a newer one.'
}

/** Stops the process with one line when this Node cannot run the server. */
export function exitOnUnsupportedNode (): void {
  const reason = unsupportedNodeReason()
  if (reason === null) return
  console.error(`threshold: ${reason}`)
  process.exit(1)
}
