// The two instances of npm run load:faults: the built server
// (dist/server/main.js, with its embedded reference service) as the
// production install runs it, on one PostgreSQL and one Redis, sharing one
// signing key (DATA_DIR/keys, docs/scale-out.md#the-signing-key-the-same-on-every-instance).
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { FAKETIME_LIBRARY } from './services.mjs'
import { freePort, startEdge } from '../tools.mjs'

/** @typedef {Awaited<ReturnType<typeof startEdge>>} Edge */
/**
 * One instance: `edge` while it runs, `logFile` its current start's log ('' before its first).
 * @typedef {{ name: string, port: number, dataDir: string, edge: Edge | null, starts: number, stopping: boolean, logFile: string, skewed: boolean }} Instance
 */
/** @typedef {{ instance: string, exit: string, logFile?: string, tail: string }} Crash */

/**
 * Two instances, each on a port of its own and a DATA_DIR of its own whose
 * keys/ is one shared folder (the "shared volume" of docs/scale-out.md).
 * `env`: what both are given. An instance that exits without being told to
 * is a crash: noted with its log's tail (`onCrash`) and started again, so that
 * the run goes on.
 * @param {{ folder: string, env: Record<string, string>, onCrash: (crash: Crash) => void }} options
 */
export async function createInstances ({ folder, env, onCrash }) {
  const keys = join(folder, 'keys')
  mkdirSync(keys, { mode: 0o700 })
  /** @type {Instance[]} */
  const instances = []
  /** @type {string[]} */
  const logFiles = []
  for (const name of ['a', 'b']) {
    const dataDir = join(folder, `instance-${name}`)
    mkdirSync(dataDir, { mode: 0o700 })
    symlinkSync(keys, join(dataDir, 'keys'))
    instances.push({ name, port: await freePort(), dataDir, edge: null, starts: 0, stopping: false, logFile: '', skewed: false })
  }

  /**
   * @param {Instance} instance
   * @param {{ skewSeconds?: number }} [options]
   */
  async function start (instance, { skewSeconds = 0 } = {}) {
    instance.starts++
    instance.logFile = join(folder, `instance-${instance.name}-${instance.starts}.log`)
    logFiles.push(instance.logFile)
    instance.skewed = skewSeconds !== 0
    const startedAt = Date.now()
    instance.edge = await startEdge({
      ...env,
      DATA_DIR: instance.dataDir,
      // libfaketime moves the wall clock of the edge and of the service it forks (which inherits the
      // environment); monotonic clocks (timers) are left alone.
      ...(skewSeconds === 0 ? {} : { LD_PRELOAD: FAKETIME_LIBRARY, FAKETIME: `${skewSeconds >= 0 ? '+' : ''}${skewSeconds}s`, FAKETIME_DONT_FAKE_MONOTONIC: '1' })
    }, { logFile: instance.logFile, port: instance.port })
    instance.stopping = false
    return Date.now() - startedAt
  }

  const watcher = setInterval(() => {
    for (const instance of instances) {
      if (instance.edge === null || instance.stopping || instance.edge.running()) continue
      const exit = instance.edge.exit()
      instance.edge = null
      const tail = readFileSync(instance.logFile, 'utf8').trim().split('\n').slice(-15).join('\n')
      onCrash({ instance: instance.name, exit, logFile: instance.logFile, tail })
      void start(instance).catch((error) => onCrash({ instance: instance.name, exit: 'restart failed', tail: error.message }))
    }
  }, 200)

  return {
    instances,
    ports: instances.map((instance) => instance.port),
    /** Every log an instance has written, one file per start. */
    logFiles,
    start,
    /**
     * Stops an instance with `signal` (its own process; the service it forked follows) and waits for its exit; resolves with the exit.
     * @param {Instance} instance
     * @param {NodeJS.Signals} signal
     */
    async stop (instance, signal) {
      const edge = instance.edge
      // Between a crash and its restart (the watcher's), there is nothing to stop.
      if (edge === null) throw new Error(`instance ${instance.name} is not running`)
      instance.stopping = true
      instance.edge = null
      process.kill(edge.pid, signal)
      const startedAt = Date.now()
      while (edge.running()) await new Promise((resolve) => setTimeout(resolve, 20))
      return { exit: edge.exit(), ms: Date.now() - startedAt }
    },
    async stopAll () {
      clearInterval(watcher)
      await Promise.all(instances.map(async (instance) => {
        instance.stopping = true
        await instance.edge?.stop()
      }))
    }
  }
}
