import pg from 'pg'
import t, { type Test } from 'tap'
import { PostgresAccountStore, POSTGRES_MIGRATIONS, REACHABLE_CACHE_MS, type DatabaseWait } from '../../../../server/reference/store/postgres-store.js'
import { isStoreUnavailable, StoreUnavailable } from '../../../../server/reference/store/store-unavailable.js'
import { holdTableLock, pollUntil, postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'

const NEW_ACCOUNT = { firstName: null, lastName: null, passwordHash: 'h', googleSubject: null }

async function open (t: Test, connectionString: string, options: { connectionErrors?: Error[], waitForDatabase?: DatabaseWait } = {}): Promise<PostgresAccountStore> {
  const store = await PostgresAccountStore.open({
    connectionString,
    onIdleError: (error) => options.connectionErrors?.push(error),
    ...(options.waitForDatabase === undefined ? {} : { waitForDatabase: options.waitForDatabase })
  })
  t.teardown(() => store.close())
  return store
}

/** How long a store gets to notice that PostgreSQL went or came back. */
const OUTAGE_WAIT_MS = 10_000

/** Waits until `check` answers true, for at most OUTAGE_WAIT_MS. */
const eventually = async (check: () => Promise<boolean>): Promise<boolean> => await pollUntil(check, OUTAGE_WAIT_MS)

/** The error `promise` rejects with (fails the test when it resolves). */
async function rejection (t: Test, promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  t.fail('expected the call to fail')
  return null
}

t.test('with a real PostgreSQL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)

  t.test('a connection ended while held for a transaction fails that call as unavailable; the process and the next call carry on', async (t) => {
    const url = await server.createDatabase()
    const store = await open(t, url)
    const created = await store.createAccount({ email: 'held@example.com', ...NEW_ACCOUNT })
    const accountId = 'created' in created ? created.created.id : ''

    // Another session holds the table the transaction writes: the store's connection waits inside its transaction.
    const { blocker, waitingBackend } = await holdTableLock(t, url, 'refresh_tokens')
    const failing = rejection(t, store.revokeAccountRefreshTokens(accountId, Date.now()))
    const waiting = await waitingBackend(OUTAGE_WAIT_MS)
    t.ok(waiting, 'the transaction waits on the lock')
    await blocker.query('SELECT pg_terminate_backend($1)', [waiting])

    const error = await failing
    t.ok(isStoreUnavailable(error), `the call fails as unavailable (${String(error)})`)
    await blocker.query('ROLLBACK')
    // The closing socket's own event comes after the statement's error: had it gone unheard, the process would have ended by now.
    await new Promise((resolve) => setTimeout(resolve, 200))

    await store.revokeAccountRefreshTokens(accountId, Date.now())
    t.equal((await store.findAccountById(accountId))?.email, 'held@example.com', 'the next calls work')
  })

  t.test('a store opened while PostgreSQL is down waits for it: unreachable and unavailable until it comes, then migrated and serving', async (t) => {
    const url = await server.createDatabase()
    await server.stop()
    t.teardown(() => server.start())
    const attempts: Error[] = []
    let openedWith: readonly unknown[] | null = null
    const store = await open(t, url, {
      waitForDatabase: { onAttemptFailed: (error) => attempts.push(error), onOpened: (conflicts) => { openedWith = conflicts } }
    })

    t.match(attempts[0], { code: 'ECONNREFUSED' }, 'the failed first attempt is told')
    t.equal(await store.reachable(), false, 'not reachable')
    t.ok((await rejection(t, store.findAccountByEmail('a@example.com'))) instanceof StoreUnavailable, 'a call fails as unavailable')
    t.ok(isStoreUnavailable(await rejection(t, store.revokeOtherSessions('a', 'f', 1))), 'a transaction too')
    t.ok(await eventually(async () => attempts.length >= 2), 'it tries again')

    await server.start()
    t.ok(await eventually(async () => openedWith !== null), 'it opens once PostgreSQL is back')
    t.same(openedWith, [], 'and tells what the migration found')
    t.equal(await store.reachable(), true, 'reachable')
    t.ok('created' in await store.createAccount({ email: 'a@example.com', ...NEW_ACCOUNT }), 'calls are served')
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    t.teardown(() => client.end())
    const { rows } = await client.query<{ version: number }>('SELECT MAX(version) AS version FROM schema_migrations')
    t.equal(rows[0]!.version, POSTGRES_MIGRATIONS.length, 'the schema is migrated')
  })

  t.test('a store closed while it waits for PostgreSQL stops trying', async (t) => {
    const url = await server.createDatabase()
    await server.stop()
    t.teardown(() => server.start())
    const attempts: Error[] = []
    const store = await PostgresAccountStore.open({
      connectionString: url,
      onIdleError: () => {},
      waitForDatabase: { onAttemptFailed: (error) => attempts.push(error), onOpened: () => t.fail('opened after its closing') }
    })
    await store.close()
    const tried = attempts.length
    await server.start()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    t.equal(attempts.length, tried, 'no attempt after the closing')
  })

  t.test('PostgreSQL stopped under a running store: calls fail as unavailable and it is unreachable; started again, new connections serve', async (t) => {
    const url = await server.createDatabase()
    const connectionErrors: Error[] = []
    const store = await open(t, url, { connectionErrors })
    await store.createAccount({ email: 'b@example.com', ...NEW_ACCOUNT })
    await Promise.all(Array.from({ length: 5 }, () => store.listMemberships('warm-up-the-pool')))
    t.equal(await store.reachable(), true)

    await server.stop()
    t.teardown(() => server.start())
    t.ok(isStoreUnavailable(await rejection(t, store.findAccountByEmail('b@example.com'))), 'a call fails as unavailable')
    await new Promise((resolve) => setTimeout(resolve, REACHABLE_CACHE_MS))
    t.equal(await store.reachable(), false, 'unreachable')

    await server.start()
    t.ok(await eventually(() => store.reachable()), 'reachable again')
    t.equal((await store.findAccountByEmail('b@example.com'))?.email, 'b@example.com', 'the next call works')
  })

  t.test('the database\'s clock unreadable while PostgreSQL is down: told as a clock failure, the last offset kept, read again when it is back', async (t) => {
    const url = await server.createDatabase()
    const connectionErrors: Error[] = []
    const clockFailures: Error[] = []
    const offsets: number[] = []
    const store = await PostgresAccountStore.open({
      connectionString: url,
      onIdleError: (error) => connectionErrors.push(error),
      onClockSynced: (offsetMs) => offsets.push(offsetMs),
      onClockSyncFailed: (error) => clockFailures.push(error),
      clockSyncIntervalMs: 100
    })
    t.teardown(() => store.close())
    t.equal(offsets.length, 1, 'the clock is read at the opening')

    await server.stop()
    t.teardown(() => server.start())
    t.ok(await eventually(async () => clockFailures.length > 0), 'a failed reading is told as the clock\'s')
    const told = offsets.length
    t.ok(Math.abs(store.now() - Date.now()) < 1000, 'the store keeps the offset it measured (the same machine: about 0)')

    await server.start()
    t.ok(await eventually(async () => offsets.length > told), 'the clock is read again once the database is back')
  })
})

t.test('connection failures are told apart from refused statements', async (t) => {
  const refused = new pg.DatabaseError('duplicate key value violates unique constraint', 0, 'error')
  refused.code = '23505'
  t.notOk(isStoreUnavailable(refused), 'a unique violation is the call\'s answer')
  const terminated = new pg.DatabaseError('terminating connection due to administrator command', 0, 'error')
  terminated.code = '57P01'
  t.ok(isStoreUnavailable(terminated), 'a terminated connection')
  t.ok(isStoreUnavailable(new Error('Connection terminated unexpectedly')), 'a connection that ended under a query')
  t.ok(isStoreUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })), 'a refused connection')
  t.ok(isStoreUnavailable(new Error('timeout exceeded when trying to connect')), 'a pool that could not connect in time')
  t.notOk(isStoreUnavailable(new Error('something else')), 'any other error')
})
