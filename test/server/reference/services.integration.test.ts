import { spawn } from 'node:child_process'
import { chmodSync, existsSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { edgeListeningAddress } from '../../fixtures/servers/built-server.js'
import { TEST_PASSWORD_HASH_COST } from '../../fixtures/servers/reference.js'
import t, { type Test } from 'tap'
import { loadReferenceConfig } from '../../../server/reference/config.js'
import { createReferenceServices } from '../../../server/reference/services.js'
import { databaseFile } from '../../../server/reference/store/open-store.js'
import { PostgresAccountStore } from '../../../server/reference/store/postgres-store.js'
import { SqliteAccountStore } from '../../../server/reference/store/sqlite-store.js'
import { postgresSkip, startPostgresServer } from '../../fixtures/servers/postgres-server.js'
import { postJson } from '../../fixtures/http/post-json.js'

const MAIN = fileURLToPath(new URL('../../../dist/server/main.js', import.meta.url))
const silent = { info () {}, error () {}, warn () {}, debug () {}, fatal () {}, trace () {}, child () { return silent }, level: 'silent' } as never

async function tempDataDir (t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'threshold-data-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

interface RunningEdge {
  readonly base: string
  output (): string
  stop (): Promise<number | null>
}

/** Starts the built server (edge and embedded reference services) and waits until /readyz answers 200. */
async function startEdge (t: Test, env: Record<string, string>): Promise<RunningEdge> {
  const child = spawn(process.execPath, [MAIN], {
    // Never the public range API (tests run offline): breached passwords have their own tests with a local corpus.
    // DRAIN_SECONDS=0: nothing in front to drain for, and the default drain would add 10 s to each stop.
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST, BREACHED_PASSWORDS: 'off', DRAIN_SECONDS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })

  const deadline = Date.now() + 30_000
  let base: string | undefined
  while (Date.now() < deadline && child.exitCode === null) {
    base ??= edgeListeningAddress(output)
    if (base !== undefined && (await fetch(`${base}/readyz`).catch(() => null))?.status === 200) {
      return {
        base,
        output: () => output,
        async stop () {
          child.kill('SIGTERM')
          return exited
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the server did not become ready:\n${output}`)
}

t.test('without DATABASE_URL the accounts are kept in the SQLite file of DATA_DIR', async (t) => {
  const dataDir = await tempDataDir(t)
  const services = await createReferenceServices(loadReferenceConfig({ DATA_DIR: dataDir }, 8080), silent)
  t.teardown(() => services.close())
  t.ok(services.store instanceof SqliteAccountStore)
  t.ok(existsSync(databaseFile(dataDir)))
})

t.test('another local user cannot read the accounts: DATA_DIR is 0700 and the database files 0600, new or found looser', async (t) => {
  // The attack: any local account reads accounts.sqlite (0644 in a 0755 folder under a umask of 022) and its -wal.
  const previous = process.umask(0o022)
  t.teardown(() => process.umask(previous))
  const fresh = join(await tempDataDir(t), 'data')
  const first = await createReferenceServices(loadReferenceConfig({ DATA_DIR: fresh }, 8080), silent)
  await first.store.createAccount({ email: 'private@example.com', firstName: null, lastName: null, passwordHash: 'scrypt$x', googleSubject: null })
  const modes = (dataDir: string) => [dataDir, databaseFile(dataDir), `${databaseFile(dataDir)}-wal`, `${databaseFile(dataDir)}-shm`]
    .map((path) => (statSync(path).mode & 0o777).toString(8))
  t.same(modes(fresh), ['700', '600', '600', '600'], 'made private')
  await first.close()

  // As an earlier version left them.
  for (const [path, mode] of [[fresh, 0o755], [databaseFile(fresh), 0o644], [`${databaseFile(fresh)}-wal`, 0o644], [`${databaseFile(fresh)}-shm`, 0o664]] as const) {
    if (existsSync(path)) chmodSync(path, mode)
  }
  const warnings: Array<Record<string, unknown>> = []
  const log = {
    info () {}, error () {}, debug () {}, fatal () {}, trace () {}, level: 'warn',
    warn: (details: Record<string, unknown>) => { warnings.push(details) },
    child () { return log }
  }
  const second = await createReferenceServices(loadReferenceConfig({ DATA_DIR: fresh }, 8080), log as never)
  t.teardown(() => second.close())
  t.same(modes(fresh), ['700', '600', '600', '600'], 'tightened at start')
  t.ok(warnings.some((warning) => warning.path === fresh && warning.was === '755' && warning.now === '700'), 'with a warning naming the folder')
  t.ok(warnings.some((warning) => warning.path === databaseFile(fresh) && warning.was === '644'), 'and the file')
  t.ok(await second.store.findAccountByEmail('private@example.com'), 'nothing was lost')
})

t.test('a DATABASE_URL that cannot be reached at the start does not stop the server: it is not ready, and its log names the cause, not the password', async (t) => {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: await tempDataDir(t),
      DATABASE_URL: 'postgres://threshold:s3cret-pw@127.0.0.1:9/threshold',
      // Stopped below with nothing in front to drain for: without it, the default drain waits 10 s.
      DRAIN_SECONDS: '0'
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)))
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })

  let readyz: Response | null = null
  for (const deadline = Date.now() + 20_000; Date.now() < deadline && child.exitCode === null;) {
    const base = edgeListeningAddress(output)
    // Past the embedded service's start, its answer (503) is what /readyz reports.
    if (base !== undefined && /PostgreSQL cannot be reached/.test(output)) {
      readyz = await fetch(`${base}/readyz`)
      if (readyz.status === 503 && (await readyz.json() as { upstreams: { accounts: { reason: string } } }).upstreams.accounts.reason !== 'refused') break
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(readyz?.status, 503, '/readyz answers 503')
  await new Promise((resolve) => setTimeout(resolve, 1000))
  t.equal(child.exitCode, null, 'the server keeps running, waiting for the database')
  t.match(output, /PostgreSQL cannot be reached \(DATABASE_URL\): trying again; not ready meanwhile/)
  t.match(output, /ECONNREFUSED/)
  t.notMatch(output, /s3cret-pw/)
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'and stops cleanly')
})

t.test('with DATABASE_URL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)

  t.test('the accounts are kept in PostgreSQL, and no SQLite file is made', async (t) => {
    const dataDir = await tempDataDir(t)
    const services = await createReferenceServices(
      loadReferenceConfig({ DATA_DIR: dataDir, DATABASE_URL: await server.createDatabase() }, 8080), silent)
    t.teardown(() => services.close())
    t.ok(services.store instanceof PostgresAccountStore)
    t.notOk(existsSync(databaseFile(dataDir)))
  })

  t.test('register and log in through the real edge, and log in again after a restart on an empty DATA_DIR', async (t) => {
    const databaseUrl = await server.createDatabase()
    const account = { email: 'pat@example.com', password: 'correct horse battery', confirm_password: 'correct horse battery', first_name: 'Pat', last_name: null }

    const first = await startEdge(t, { DATA_DIR: await tempDataDir(t), DATABASE_URL: databaseUrl })
    t.equal((await postJson(first.base, '/accounts/register', account)).status, 200, 'registered')
    const login = await postJson(first.base, '/accounts/v2/login', { email: 'Pat@Example.com', password: account.password })
    t.equal(login.status, 200, 'logged in')
    t.match(login.body, { auth: String, refresh: String })
    t.equal(await first.stop(), 0, 'stopped cleanly, closing its pool')
    t.match(first.output(), /accounts are stored in PostgreSQL/)
    t.notMatch(first.output(), new URL(databaseUrl).password, 'the database password is not logged')

    const second = await startEdge(t, { DATA_DIR: await tempDataDir(t), DATABASE_URL: databaseUrl })
    const again = await postJson(second.base, '/accounts/v2/login', { email: 'pat@example.com', password: account.password })
    t.equal(again.status, 200, 'the account outlived the instance that made it')
    // Another password: the same one again would be a registration repeated after a lost answer.
    t.equal((await postJson(second.base, '/accounts/register', { ...account, password: 'another horse battery', confirm_password: 'another horse battery' })).status, 409,
      'and is still taken')
    t.equal(await second.stop(), 0)
  })
})
