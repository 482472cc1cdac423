import type { FastifyBaseLogger } from 'fastify'
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs'

/** DATA_DIR and the SQLite file with its companions: for the service's user alone. */
const PRIVATE_DIRECTORY_MODE = 0o700
const PRIVATE_FILE_MODE = 0o600

/**
 * Makes `path` no more open than `mode`: an earlier version, an operator's
 * copy or a loose umask may have left accounts (password hashes, token
 * hashes) readable by every local user. Tightened with one warning naming
 * the path; a path the service does not own is warned about and left.
 */
function tighten (path: string, mode: number, log: FastifyBaseLogger): void {
  const current = statSync(path).mode & 0o777
  if ((current & ~mode) === 0) return
  try {
    chmodSync(path, current & mode)
    log.warn({ path, was: current.toString(8), now: (current & mode).toString(8) }, 'a file of the accounts store was readable by other local users; its mode has been tightened')
  } catch (error) {
    log.warn({ path, mode: current.toString(8), code: (error as { code?: string }).code }, 'a file of the accounts store is readable by other local users and its mode could not be changed; change it yourself')
  }
}

/**
 * Before SQLite opens `file` in `dataDir`: the folder exists as 0700, and the
 * file exists as 0600 (SQLite then gives its -wal and -shm files the same
 * mode). Existing looser modes are tightened.
 */
export function prepareDatabaseFile (dataDir: string, file: string, log: FastifyBaseLogger): void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE })
  tighten(dataDir, PRIVATE_DIRECTORY_MODE, log)
  if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE))
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) tighten(path, PRIVATE_FILE_MODE, log)
  }
}
