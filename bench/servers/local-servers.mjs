// The real PostgreSQL, Redis and nginx that the tests (test/fixtures/servers/, test/deploy/) and
// npm run load:faults (bench/faults/) start on free loopback ports, in a folder of the caller's:
// one implementation for both. Plain JavaScript, as the bench scripts run on plain node without
// the tests' TypeScript loader; the tests get its types from the JSDoc (npm run typecheck checks
// it with bench/). Who removes the folder, and when, is the caller's business.
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { commandExists, freePort, isRoot, spawnUntilReady } from '../tools.mjs'

/** @import { RunningServer } from '../tools.mjs' */

/** The login a PostgreSQL cluster is made with; its password is random per cluster. */
const SUPERUSER = 'threshold'

/** How many times a server is started on a fresh free port when the one picked was taken meanwhile. */
const PORT_ATTEMPTS = 3

/**
 * Starts `launch` on a free loopback port, again on another when that one was taken meanwhile
 * (Redis and PostgreSQL cannot listen on port 0 and say which port they got); the port it got.
 * @param {(port: number) => Promise<void>} launch
 * @returns {Promise<number>}
 */
async function onFreePort (launch) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    try {
      await launch(port)
      return port
    } catch (error) {
      if (attempt === PORT_ATTEMPTS || !/already in use/i.test(String(error))) throw error
    }
  }
}

/**
 * initdb and postgres: Debian's newest installed version, else whatever PATH has; null when neither.
 * @returns {{ initdb: string, postgres: string } | null}
 */
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
 * initdb and postgres refuse to run as root (the tests and CI do run as root): as root, they
 * run as the `postgres` account, which then owns the cluster's folder.
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
  let uid, gid
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
  } catch {
    throw new Error('running as root, PostgreSQL needs the `postgres` account (the postgresql package makes it)')
  }
  chownSync(path, uid, gid)
}

/**
 * @typedef {object} PostgresCluster
 * @property {number} port
 * @property {(database?: string) => string} url postgres://threshold:PASSWORD@127.0.0.1:PORT/DATABASE (`postgres` unless named)
 * @property {() => Promise<void>} stop A fast shutdown (SIGINT), which ends open sessions: an outage.
 * @property {() => Promise<void>} start Brings a stopped cluster back, with its data, on the same port.
 * @property {() => number | undefined} pid The server's process id (its backends are its children); undefined while stopped.
 */

/**
 * A PostgreSQL cluster in `dir` (an empty folder) with password (SCRAM) logins on a loopback
 * port, tuned for tests and load runs alike (no fsync). Its log goes to `logFile`.
 * @param {string} dir
 * @param {{ logFile: string }} options
 * @returns {Promise<PostgresCluster>}
 */
export async function startPostgresCluster (dir, { logFile }) {
  const binaries = postgresBinaries()
  if (binaries === null) throw new Error('PostgreSQL is not installed (Debian package postgresql)')
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
  /** @type {RunningServer | null} */
  let running = null
  /** @param {number} port */
  const launch = async (port) => {
    const [command, args] = asServerAccount(binaries.postgres, [
      '-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'
    ])
    running = await spawnUntilReady(command, args, { ready: /database system is ready to accept connections/, timeoutMs: 30_000, logFile, cwd: dir })
  }
  const port = await onFreePort(launch)
  return {
    port,
    url: (database = 'postgres') => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    async stop () {
      await running?.stop('SIGINT')
      running = null
    },
    async start () {
      if (running === null) await launch(port)
    },
    pid: () => running?.child.pid
  }
}

/**
 * @typedef {object} RedisProcess
 * @property {number} port
 * @property {string} url redis://127.0.0.1:PORT
 * @property {() => Promise<void>} stop An outage: its counts are lost.
 * @property {() => Promise<void>} start Brings a stopped server back, empty, on the same port.
 * @property {() => import('node:child_process').ChildProcess | undefined} child The running process (to freeze it, say); undefined while stopped.
 */

/**
 * redis-server on a loopback port, in memory only (no snapshots, no append-only file), its
 * working folder `dir` and its log `logFile`; `binary` is redis-server on PATH unless named.
 * @param {string} dir
 * @param {{ logFile: string, binary?: string }} options
 * @returns {Promise<RedisProcess>}
 */
export async function startRedisProcess (dir, { logFile, binary = 'redis-server' }) {
  /** @type {RunningServer | null} */
  let running = null
  /** @param {number} port */
  const launch = async (port) => {
    running = await spawnUntilReady(binary, [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'
    ], { ready: /Ready to accept connections/, timeoutMs: 10_000, logFile })
  }
  const port = await onFreePort(launch)
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop () {
      await running?.stop()
      running = null
    },
    async start () {
      if (running === null) await launch(port)
    },
    child: () => running?.child
  }
}

/**
 * The nginx files to run deploy/nginx/threshold.conf (`site`, as the caller changed it) as an
 * unprivileged process, in `dir`: its ports 80 and 443 become free loopback ports (the IPv6
 * listens dropped), its certificate a fresh self-signed one for `host`, and a minimal
 * nginx.conf includes it. Every other line is the site file's. Run it with
 * `nginx -c conf -p dir -e stderr`.
 * @param {string} dir
 * @param {string} site
 * @param {{ host: string, workerConnections: number }} options
 * @returns {Promise<{ conf: string, https: number, http: number }>}
 */
export async function nginxFrontFiles (dir, site, { host, workerConnections }) {
  // nginx's workers run as another user when nginx starts as root: they must reach the folder.
  chmodSync(dir, 0o755)
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', `/CN=${host}`,
    '-keyout', join(dir, 'privkey.pem'), '-out', join(dir, 'fullchain.pem')], { stdio: 'ignore' })
  const [https, http] = [await freePort(), await freePort()]
  writeFileSync(join(dir, 'threshold.conf'), site
    .replace(/^\s*listen \[::\]:\d+.*$/gm, '')
    .replace(/^(\s*)listen 443 /m, `$1listen 127.0.0.1:${https} `)
    .replace(/^(\s*)listen 80;/m, `$1listen 127.0.0.1:${http};`)
    .replace(`/etc/letsencrypt/live/${host}/fullchain.pem`, join(dir, 'fullchain.pem'))
    .replace(`/etc/letsencrypt/live/${host}/privkey.pem`, join(dir, 'privkey.pem')))
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp))
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, `
${isRoot() ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections ${workerConnections}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${join(dir, 'threshold.conf')};
}
`)
  return { conf, https, http }
}
