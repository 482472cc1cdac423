// The faults of npm run load:faults, one at a time, each with the load running
// before, during and after it. Each `run` brings the system back whole (an
// instance restarted, a database started again) before it resolves; what it
// returns is a note for the run's report.
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { childPids, SITE_HOST } from './services.mjs'

/** @import { Instance } from './instances.mjs' */
/** @import { Account } from './load.mjs' */
/**
 * What a fault acts on (see FAULTS).
 * @typedef {object} FaultContext
 * @property {Awaited<ReturnType<typeof import('./instances.mjs').createInstances>>} instances
 * @property {Awaited<ReturnType<typeof import('./postgres.mjs').startPostgres>>} postgres
 * @property {Awaited<ReturnType<typeof import('./services.mjs').startRedis>>} redis
 * @property {ReturnType<typeof import('./load.mjs').createLoad>} load
 * @property {number} freezeMs longer than UPSTREAM_TIMEOUT_MS
 * @property {number} postgresDownMs
 * @property {number} outageMs Redis's
 * @property {number} skewHoldMs
 */
/** @typedef {{ name: string, what: string, run: (context: FaultContext) => Promise<string> }} Fault */

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms))
const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`

/**
 * The instance a fault acts on, by its place.
 * @param {FaultContext} context
 * @param {number} index
 */
function instanceAt (context, index) {
  const instance = context.instances.instances[index]
  if (instance === undefined) throw new Error(`no instance ${index}`)
  return instance
}

/** The clock skew of the clock-skew fault: one instance this far ahead. */
const SKEW_SECONDS = 300

/**
 * How far an instance's clock is from this process's, read from its Date header (whole seconds).
 * @param {number} port
 */
async function clockOffsetSeconds (port) {
  const before = Date.now()
  const response = await fetch(`http://127.0.0.1:${port}/healthz`)
  await response.arrayBuffer()
  const theirs = Date.parse(response.headers.get('date') ?? '')
  return Math.round((theirs - (before + Date.now()) / 2) / 1000)
}

/**
 * The offsets an instance measured from the clocks it shares (server/shared/shared-clock.ts), as its log
 * says them (negative: its own clock is ahead): PostgreSQL's for its service, Redis's for its edge.
 * @param {string} logFile
 */
function measuredOffsetsSeconds (logFile) {
  /** @type {Record<string, number>} */
  const offsets = {}
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const server = /clock differs from the (PostgreSQL|Redis) server/.exec(line)?.[1]
    const offsetMs = /"offsetMs":(-?\d+)/.exec(line)?.[1]
    if (server !== undefined && offsetMs !== undefined) offsets[server] = Math.round(Number(offsetMs) / 1000)
  }
  return offsets
}

/**
 * The clock the service an instance forked signs with, from the `iat` of an auth token (a login straight to the instance).
 * @param {number} port
 * @param {Account} account
 */
async function serviceClockOffsetSeconds (port, account) {
  const before = Date.now()
  const body = JSON.stringify({ email: account.email, password: account.password })
  /** @type {{ auth?: unknown }} */
  const answer = await new Promise((resolve, reject) => {
    // node:http, not fetch: fetch does not send a Host header of the caller's, and the edge serves the site's host only.
    const outgoing = httpRequest({ host: '127.0.0.1', port, path: '/accounts/v2/login', method: 'POST', headers: { host: SITE_HOST, 'content-type': 'application/json' } }, (response) => {
      let text = ''
      response.on('data', (chunk) => { text += chunk })
      response.on('end', () => { try { resolve(JSON.parse(text)) } catch (error) { reject(error) } })
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
  if (typeof answer.auth !== 'string') return null
  const { iat } = JSON.parse(Buffer.from(answer.auth.split('.')[1] ?? '', 'base64url').toString('utf8'))
  return Math.round(iat - before / 1000)
}

/** PostgreSQL's code for the transaction it ended to break a deadlock. */
const DEADLOCK_DETECTED = '40P01'

/**
 * Opens a transaction holding accounts and refresh_tokens exclusively. A service transaction that
 * holds refresh_tokens and then needs accounts (an insert's foreign-key check) deadlocks with it,
 * and PostgreSQL ends one of the two: when it ends this one, it tries again.
 * @param {import('pg').Client} session
 */
async function lockTables (session) {
  for (let attempt = 1; ; attempt++) {
    await session.query('BEGIN')
    try {
      await session.query('LOCK TABLE accounts, refresh_tokens IN ACCESS EXCLUSIVE MODE')
      return
    } catch (error) {
      await session.query('ROLLBACK')
      if (attempt === 5 || /** @type {{ code?: string }} */ (error).code !== DEADLOCK_DETECTED) throw error
    }
  }
}

/**
 * @param {FaultContext} context
 * @param {Instance} instance
 * @param {NodeJS.Signals} signal
 */
async function restart (context, instance, signal) {
  const { exit, ms } = await context.instances.stop(instance, signal)
  const startMs = await context.instances.start(instance)
  return `instance ${instance.name}: ${signal}, exited (${exit}) after ${seconds(ms)}, listening again ${seconds(startMs)} later`
}

/**
 * The nine faults. `context`: { instances, postgres, redis, load,
 * freezeMs (longer than UPSTREAM_TIMEOUT_MS), postgresDownMs, outageMs (Redis's),
 * skewHoldMs }.
 * @type {Fault[]}
 */
export const FAULTS = [
  {
    name: 'sigterm-restart',
    what: 'SIGTERM of one instance (drain, stop), then its start: a rolling restart',
    run: (context) => restart(context, instanceAt(context, 0), 'SIGTERM')
  },
  {
    name: 'sigkill-restart',
    what: 'SIGKILL of one instance, then its start',
    run: (context) => restart(context, instanceAt(context, 0), 'SIGKILL')
  },
  {
    name: 'postgres-restart',
    what: 'PostgreSQL stopped (fast shutdown) and started again',
    async run ({ postgres, postgresDownMs }) {
      const started = Date.now()
      await postgres.stop()
      await sleep(postgresDownMs)
      await postgres.start()
      return `PostgreSQL down for ${seconds(Date.now() - started)}`
    }
  },
  {
    name: 'postgres-connections-killed',
    what: 'every connection of the instances to PostgreSQL ended (pg_terminate_backend)',
    async run ({ postgres }) {
      const rows = await postgres.query('SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
      return `${rows.filter((row) => row.ended).length} connections ended`
    }
  },
  {
    name: 'redis-outage',
    what: 'Redis stopped, then started again (empty)',
    async run ({ redis, outageMs }) {
      await redis.stop()
      await sleep(outageMs)
      await redis.start()
      return `Redis down for ${seconds(outageMs)}`
    }
  },
  {
    name: 'service-freeze',
    what: 'one instance\'s accounts service frozen (SIGSTOP, then SIGCONT), longer than UPSTREAM_TIMEOUT_MS',
    async run (context) {
      const { freezeMs } = context
      const instance = instanceAt(context, 0)
      if (instance.edge === null) throw new Error(`instance ${instance.name} is not running`)
      const service = childPids(instance.edge.pid)
      if (service.length === 0) throw new Error(`instance ${instance.name} has no service process to freeze`)
      for (const pid of service) process.kill(pid, 'SIGSTOP')
      await sleep(freezeMs)
      for (const pid of service) process.kill(pid, 'SIGCONT')
      return `instance ${instance.name}'s service (pid ${service.join(', ')}) frozen ${seconds(freezeMs)}`
    }
  },
  {
    name: 'postgres-freeze',
    what: 'PostgreSQL frozen (SIGSTOP of the server and its backends, then SIGCONT), longer than UPSTREAM_TIMEOUT_MS',
    async run ({ postgres, freezeMs }) {
      const server = postgres.pid()
      if (server === undefined) throw new Error('PostgreSQL is not running')
      const frozen = [server, ...childPids(server)]
      for (const pid of frozen) process.kill(pid, 'SIGSTOP')
      await sleep(freezeMs)
      for (const pid of frozen.reverse()) process.kill(pid, 'SIGCONT')
      return `${frozen.length} PostgreSQL processes frozen ${seconds(freezeMs)}`
    }
  },
  {
    name: 'table-lock',
    what: 'accounts and refresh_tokens locked (LOCK TABLE … ACCESS EXCLUSIVE in a transaction), longer than UPSTREAM_TIMEOUT_MS',
    async run ({ postgres, freezeMs }) {
      const session = await postgres.connect()
      try {
        await lockTables(session)
        await sleep(freezeMs)
        await session.query('ROLLBACK')
      } finally {
        await session.end()
      }
      return `tables locked ${seconds(freezeMs)}`
    }
  },
  {
    name: 'clock-skew',
    what: `one instance restarted with its clock ${SKEW_SECONDS / 60} minutes ahead (libfaketime), then restarted right`,
    async run (context) {
      const { instances, load, skewHoldMs } = context
      const instance = instanceAt(context, 1)
      const account = load.accounts[0]
      if (account === undefined) throw new Error('no account to log in with')
      await instances.stop(instance, 'SIGTERM')
      await instances.start(instance, { skewSeconds: SKEW_SECONDS })
      const edgeOffset = await clockOffsetSeconds(instance.port)
      if (Math.abs(edgeOffset - SKEW_SECONDS) > 2) throw new Error(`libfaketime did not move the instance's clock: its Date header is ${edgeOffset} s ahead`)
      // Its own clock is ahead; what it shares follows PostgreSQL's and Redis's, and it says how far it is from them.
      const measured = measuredOffsetsSeconds(instance.logFile)
      const tokenOffset = await serviceClockOffsetSeconds(instance.port, account)
      await sleep(skewHoldMs)
      await restart(context, instance, 'SIGTERM')
      return `instance ${instance.name}: its Date header ${edgeOffset} s ahead; measured from PostgreSQL ${measured.PostgreSQL ?? '?'} s, ` +
        `from Redis ${measured.Redis ?? '?'} s; its tokens' iat ${tokenOffset ?? '?'} s ahead; for ${seconds(skewHoldMs)}`
    }
  }
]
