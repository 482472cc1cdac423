// The PostgreSQL of npm run load:faults, started on a free loopback port in a
// folder of the caller's by the cluster start the tests share (bench/servers/local-servers.mjs),
// with the database and the calls the fault run needs.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { startPostgresCluster } from '../servers/local-servers.mjs'

/**
 * A PostgreSQL cluster in `folder/postgres` with password (SCRAM) logins on a
 * loopback port, tuned as the tests tune it (no fsync). `stop` is a fast
 * shutdown (SIGINT, which ends open sessions), `start` brings it back with
 * its data on the same port; `query` opens a connection of its own each time,
 * so that it works across restarts.
 * @param {string} folder
 */
export async function startPostgres (folder) {
  const dir = join(folder, 'postgres')
  mkdirSync(dir)
  const logFile = join(folder, 'postgres.log')
  const cluster = await startPostgresCluster(dir, { logFile })
  const url = cluster.url
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
    stop: cluster.stop,
    start: cluster.start,
    /** The server's process id (its backends are its children); undefined while stopped. */
    pid: cluster.pid
  }
}
