// The real processes of npm run load:faults: PostgreSQL, Redis and nginx with
// the shipped site file, started on free loopback ports in a folder of the
// caller's. test/fixtures/postgres-server.ts, redis-server.ts and
// test/deploy/nginx-front.integration.test.ts start them the same way for the tests;
// bench/ is plain JavaScript that Node runs without their TypeScript loader
// and tap's teardowns, hence this twin.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { commandExists, freePort } from './tools.mjs'

const SITE_FILE = fileURLToPath(new URL('../deploy/nginx/threshold.conf', import.meta.url))
/** The host the shipped site file serves (and the instances' PUBLIC_URL). */
export const SITE_HOST = 'signin.example.com'
const SUPERUSER = 'threshold'

/** @typedef {{ child: import('node:child_process').ChildProcess, stop: (signal?: NodeJS.Signals) => Promise<void> }} RunningServer */

/**
 * Spawns a server whose output is appended to `logFile` and resolves once
 * what it wrote there matches `ready`; rejects with its last lines when it
 * exits first or takes longer than `timeoutMs`.
 * @param {string} command
 * @param {string[]} args
 * @param {{ ready: RegExp, timeoutMs: number, logFile: string, cwd?: string }} options
 * @returns {Promise<RunningServer>}
 */
async function spawnUntilReady (command, args, { ready, timeoutMs, logFile, cwd }) {
  const before = existsSync(logFile) ? readFileSync(logFile, 'utf8').length : 0
  const log = openSync(logFile, 'a')
  const child = spawn(command, args, { stdio: ['ignore', log, log], cwd })
  closeSync(log)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const text = readFileSync(logFile, 'utf8').slice(before)
    if (ready.test(text)) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${command} did not start: ${text.trim().split('\n').slice(-5).join('\n')}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    child,
    async stop (signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      // A frozen process acts on the signal only once continued.
      child.kill('SIGCONT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
}

/** Debian's newest PostgreSQL, else whatever PATH has. */
function postgresBinaries () {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : []
  for (const version of versions) {
    const bin = join(root, version, 'bin')
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') }
  }
  return commandExists('initdb') && commandExists('postgres') ? { initdb: 'initdb', postgres: 'postgres' } : null
}

/** libfaketime (Debian's package faketime, for this machine's architecture), preloaded into an instance that runs with a skewed clock. */
export const FAKETIME_LIBRARY = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib']
  .map((folder) => join(folder, 'faketime/libfaketime.so.1')).find((path) => existsSync(path)) ?? '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'

/**
 * What is missing to run the fault run (libfaketime only for the clock's fault), one line each; empty when nothing is.
 * @param {{ faketime: boolean }} options
 * @returns {string[]}
 */
export function missingTools ({ faketime }) {
  return [
    postgresBinaries() === null ? 'PostgreSQL (Debian package postgresql)' : null,
    commandExists('redis-server') ? null : 'redis-server (Debian package redis-server)',
    commandExists('nginx') || existsSync('/usr/sbin/nginx') ? null : 'nginx (Debian package nginx-light)',
    commandExists('openssl') ? null : 'openssl',
    !faketime || existsSync(FAKETIME_LIBRARY) ? null : `libfaketime (Debian package faketime: ${FAKETIME_LIBRARY})`
  ].filter((line) => line !== null)
}


/** Whether this process runs as root (process.getuid is POSIX only). */
const asRoot = () => process.getuid?.() === 0

/**
 * initdb and postgres refuse root: as root, they run as the `postgres` account, which then owns the folder.
 * @param {string} command
 * @param {string[]} args
 * @returns {[string, string[]]}
 */
function asServerAccount (command, args) {
  if (!asRoot()) return [command, args]
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]]
}

/** @param {string} path */
function giveToServerAccount (path) {
  if (!asRoot()) return
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

/**
 * redis-server on a loopback port, in memory only; `stop` then `start` is an outage that loses its counts.
 * @param {string} folder
 */
export async function startRedis (folder) {
  const dir = join(folder, 'redis')
  mkdirSync(dir)
  const logFile = join(folder, 'redis.log')
  let port = 0
  /** @type {RunningServer | null} */
  let running = null
  const launch = async () => {
    running = await spawnUntilReady('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'
    ], { ready: /Ready to accept connections/, timeoutMs: 10_000, logFile })
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
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop () {
      await running?.stop()
      running = null
    },
    async start () {
      if (running === null) await launch()
    }
  }
}

/**
 * nginx with deploy/nginx/threshold.conf as an operator installs it, except
 * what only root or the internet could give it: its ports 80 and 443 become
 * free loopback ports (the IPv6 listens dropped), the certificate a fresh
 * self-signed one, and its one upstream line one line per instance, with the
 * file's own parameters (max_fails, fail_timeout). Every other line is the
 * real file's. Its error log (warn and up) goes to `folder/nginx.log`.
 * @param {string} folder
 * @param {number[]} instancePorts
 */
export async function startNginx (folder, instancePorts) {
  const dir = join(folder, 'nginx')
  mkdirSync(dir)
  // nginx's workers run as another user when nginx starts as root: they must reach the folder.
  chmodSync(dir, 0o755)
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', `/CN=${SITE_HOST}`,
    '-keyout', join(dir, 'privkey.pem'), '-out', join(dir, 'fullchain.pem')], { stdio: 'ignore' })
  const [https, http] = [await freePort(), await freePort()]
  const site = readFileSync(SITE_FILE, 'utf8')
  const upstream = /^(\s*)server 127\.0\.0\.1:8080 (.*)$/m
  if (!upstream.test(site)) throw new Error(`${SITE_FILE}: no "server 127.0.0.1:8080 …" line in its upstream`)
  writeFileSync(join(dir, 'threshold.conf'), site
    .replace(upstream, (_, indent, parameters) => instancePorts.map((port) => `${indent}server 127.0.0.1:${port} ${parameters}`).join('\n'))
    .replace(/^\s*listen \[::\]:\d+.*$/gm, '')
    .replace(/^(\s*)listen 443 /m, `$1listen 127.0.0.1:${https} `)
    .replace(/^(\s*)listen 80;/m, `$1listen 127.0.0.1:${http};`)
    .replace(`/etc/letsencrypt/live/${SITE_HOST}/fullchain.pem`, join(dir, 'fullchain.pem'))
    .replace(`/etc/letsencrypt/live/${SITE_HOST}/privkey.pem`, join(dir, 'privkey.pem')))
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp))
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, `
${asRoot() ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
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
  const logFile = join(folder, 'nginx.log')
  const nginx = commandExists('nginx') ? 'nginx' : '/usr/sbin/nginx'
  const log = openSync(logFile, 'a')
  const child = spawn(nginx, ['-c', conf, '-p', dir, '-e', 'stderr'], { stdio: ['ignore', log, log] })
  closeSync(log)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  for (const deadline = Date.now() + 10_000; ;) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${readFileSync(logFile, 'utf8')}`)
    if (await listening(https)) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    port: https,
    logFile,
    async stop () {
      if (child.exitCode !== null) return
      child.kill('SIGQUIT')
      await exited
    }
  }
}

/**
 * Whether something accepts connections on the loopback port.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function listening (port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/**
 * The process ids of `pid`'s children (Linux: /proc/<pid>/task/<thread>/children).
 * @param {number} pid
 * @returns {number[]}
 */
export function childPids (pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number))
  } catch {
    return []
  }
}
