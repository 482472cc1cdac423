// The other real processes of npm run load:faults: Redis and nginx with the
// shipped site file, started on free loopback ports in a folder of the caller's
// (PostgreSQL is postgres.mjs's), by the starts the tests share (bench/servers/local-servers.mjs).
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { nginxFrontFiles, postgresBinaries, startRedisProcess } from '../servers/local-servers.mjs'
import { commandExists } from '../tools.mjs'

const SITE_FILE = fileURLToPath(new URL('../../deploy/nginx/threshold.conf', import.meta.url))
/** The host the shipped site file serves (and the instances' PUBLIC_URL). */
export const SITE_HOST = 'signin.example.com'

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

/**
 * redis-server on a loopback port, in memory only; `stop` then `start` is an outage that loses its counts.
 * @param {string} folder
 */
export async function startRedis (folder) {
  const dir = join(folder, 'redis')
  mkdirSync(dir)
  const redis = await startRedisProcess(dir, { logFile: join(folder, 'redis.log') })
  return { url: redis.url, stop: redis.stop, start: redis.start }
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
  const site = readFileSync(SITE_FILE, 'utf8')
  const upstream = /^(\s*)server 127\.0\.0\.1:8080 (.*)$/m
  if (!upstream.test(site)) throw new Error(`${SITE_FILE}: no "server 127.0.0.1:8080 …" line in its upstream`)
  const { conf, https } = await nginxFrontFiles(dir, site.replace(upstream, (_, indent, parameters) =>
    instancePorts.map((port) => `${indent}server 127.0.0.1:${port} ${parameters}`).join('\n')), { host: SITE_HOST, workerConnections: 1024 })
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
