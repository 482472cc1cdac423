// The PostgreSQL of npm run load:faults, started on a free loopback port in a
// folder of the caller's, as test/fixtures/servers/postgres-server.ts starts one for the
// tests (bench/ is plain JavaScript that Node runs without their TypeScript
// loader and tap's teardowns, hence this twin).
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { commandExists, freePort, isRoot, spawnUntilReady } from '../tools.mjs'

/** @import { RunningServer } from '../tools.mjs' */

const SUPERUSER = 'threshold'

/** Debian's newest PostgreSQL, else whatever PATH has. */
export function postgresBinaries () {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : []
  for (const version of versions) {
    const bin = join(root, version, 'bin')
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') }
  }
  return commandExists('initdb') && commandExists('postgres') ? { initdb: 'initdb', postgres: 'postgres' } : null
}

/**
 * initdb and postgres refuse root: as root, they run as the `postgres` account, which then owns the folder.
 * @param {string} command
 * @param {string[]} args
 * @returns {[string, string[]]}
 */
function asServerAccount (command, args) {
  if (!isRoot()) return [command, args]
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]]
}

/** @param {string} path */
function giveToServerAccount (path) {
  if (!isRoot()) return
  const id = (/** @type {string} */ flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  chownSync(path, id('-u'), id('-g'))
}

/**
 * A PostgreSQL cluster in `folder/postgres` with password (SCRAM) logins on a
 * loopback port, tuned as the tests tune it (no fsync). `stop` is a fast
 * shutdown (SIGINT, which ends open sessions), `start` brings it back with
 * its data on the same port; `query` opens a connection of its own each time,
 * so that it works across restarts.
 * @param {string} folder
 */
export async function startPostgres (folder) {
  const binaries = postgresBinaries()
  if (binaries === null) throw new Error('PostgreSQL is not installed (Debian package postgresql)')
  const dir = join(folder, 'postgres')
  mkdirSync(dir)
  giveToServerAccount(dir)
  const password = randomBytes(18).toString('base64url')
  const passwordFile = join(dir, 'password')
  writeFileSync(passwordFile, password, { mode: 0o600 })
  giveToServerAccount(passwordFile)
  const dataDir = join(dir, 'data')
  const [initCommand, initArgs] = asServerAccount(binaries.initdb, [
    '-D', dataDir, '-U', SUPERUSER, `--pwfile=${passwordFile}`, '--auth-host=scram-sha-256', '--auth-local=trust',
    '-E', 'UTF8', '--locale=C', '--no-sync'
  ])
  try {
    execFileSync(initCommand, initArgs, { stdio: 'pipe', cwd: dir })
  } catch (caught) {
    const error = /** @type {Error & { stderr?: Buffer }} */ (caught)
    throw new Error(`initdb failed: ${String(error.stderr ?? error.message).trim()}`)
  }
  const logFile = join(folder, 'postgres.log')
  let port = 0
  /** @type {RunningServer | null} */
  let running = null
  const launch = async () => {
    const [command, args] = asServerAccount(binaries.postgres, [
      '-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'
    ])
    running = await spawnUntilReady(command, args, { ready: /database system is ready to accept connections/, timeoutMs: 30_000, logFile, cwd: dir })
  }
  for (let attempt = 1; ; attempt++) {
    port = await freePort()
    try {
      await launch()
      break
    } catch (error) {
      if (attempt === 3 || !/already in use/i.test(String(error))) throw error
    }
  }
  const url = (database = 'postgres') => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`
  /**
   * @param {string} sql
   * @param {unknown[]} [params]
   * @param {string} [database]
   */
  const query = async (sql, params = [], database = 'threshold') => {
    const client = new pg.Client({ connectionString: url(database) })
    await client.connect()
    try {
      return (await client.query(sql, params)).rows
    } finally {
      await client.end()
    }
  }
  await query('CREATE DATABASE threshold', [], 'postgres')
  return {
    url,
    query,
    logFile,
    /** A session of its own, for a fault that holds a lock (the caller ends it). */
    async connect () {
      const client = new pg.Client({ connectionString: url('threshold') })
      await client.connect()
      return client
    },
    async stop () {
      await running?.stop('SIGINT')
      running = null
    },
    async start () {
      if (running === null) await launch()
    },
    /** The server's process id (its backends are its children); undefined while stopped. */
    pid () {
      return running?.child.pid
    }
  }
}
