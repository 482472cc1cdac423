import pg from 'pg'
import t from 'tap'
import type { RefreshRotation } from '../../../../server/reference/store/account-store.js'
import { migrate, MIGRATION_LOCK_KEY, PostgresAccountStore, POSTGRES_MIGRATIONS, rekeyEmails } from '../../../../server/reference/store/postgres-store.js'
import { SQLITE_MIGRATIONS } from '../../../../server/reference/store/sqlite-store.js'
import { accountStoreContract } from '../../../fixtures/store/account-store-contract.js'
import { pollUntil, postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'

async function open (t: import('tap').Test, connectionString: string, idleErrors: Error[] = []): Promise<PostgresAccountStore> {
  const store = await PostgresAccountStore.open({ connectionString, onIdleError: (error) => idleErrors.push(error) })
  t.teardown(() => store.close())
  return store
}

/** Migrates an empty database to schema `version`, as that version of Threshold left it. */
async function migrateTo (connectionString: string, version: number): Promise<void> {
  const pool = new pg.Pool({ connectionString })
  try {
    await migrate(pool, version)
  } finally {
    await pool.end()
  }
}

async function query<T extends pg.QueryResultRow> (connectionString: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query<T>(text)).rows
  } finally {
    await client.end()
  }
}

/** The reuse grace the rotation tests pass (REFRESH_REUSE_GRACE_SECONDS' default). */
const GRACE_MS = 30_000

/** Another session holding a refresh token's row FOR UPDATE, in a transaction the test ends (`blocker.query('ROLLBACK')`). */
async function holdTokenRow (t: import('tap').Test, connectionString: string, tokenHash: string) {
  const blocker = new pg.Client({ connectionString })
  await blocker.connect()
  t.teardown(() => blocker.end())
  await blocker.query('BEGIN')
  await blocker.query('SELECT 1 FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE', [tokenHash])
  return {
    blocker,
    /** Whether `count` sessions wait on a lock (within five seconds). */
    waitingBackends: async (count: number): Promise<boolean> => await pollUntil(async () => {
      // As holdTableLock: a new look at the sessions each time, not the transaction's first.
      await blocker.query('SELECT pg_stat_clear_snapshot()')
      const { rows } = await blocker.query<{ waiting: number }>(
        "SELECT COUNT(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
      return rows[0]!.waiting >= count
    }, 5000)
  }
}

t.test('every SQLite migration has its PostgreSQL twin (the two lists have the same length)', async (t) => {
  t.equal(POSTGRES_MIGRATIONS.length, SQLITE_MIGRATIONS.length,
    'a change to one store\'s schema is made to the other in the same commit')
})

t.test('a database that cannot be reached fails the opening at once, without hanging', async (t) => {
  await t.rejects(PostgresAccountStore.open({ connectionString: 'postgres://nobody:secret@127.0.0.1:9/none', onIdleError: () => {} }),
    { code: 'ECONNREFUSED' })
})

t.test('on a real PostgreSQL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)

  t.test('the PostgreSQL store keeps every promise of AccountStore', async (t) => {
    accountStoreContract(t, async (t) => open(t, await server.createDatabase()))
  })

  t.test('a reuse after the grace that a rotation beside it made so while it waited still ends the family', async (t) => {
    const url = await server.createDatabase()
    const store = await open(t, url)
    const created = await store.createAccount({ email: 'held@example.com', firstName: null, lastName: null, passwordHash: 'h', googleSubject: null })
    const accountId = 'created' in created ? created.created.id : ''
    const now = Date.now()
    await store.insertRefreshToken({ tokenHash: 'held', accountId, familyId: 'f', expiresAt: now + 86_400_000, context: '{}' })
    const rotation = (successor: string, at: number): RefreshRotation =>
      ({ tokenHash: 'held', successor: { tokenHash: successor, expiresAt: at + 86_400_000, context: '{}' }, now: at, reuseGraceMs: GRACE_MS })

    // Another session holds the token's row: both rotations read it unused, then wait for it in turn.
    const { blocker, waitingBackends } = await holdTokenRow(t, url, 'held')
    const early = store.rotateRefreshToken(rotation('early', now))
    t.ok(await waitingBackends(1), 'the first rotation waits')
    const late = store.rotateRefreshToken(rotation('late', now + GRACE_MS))
    t.ok(await waitingBackends(2), 'and the second behind it')
    await blocker.query('ROLLBACK')
    t.same(await early, { rotated: 'first-use' })
    t.same(await late, { refused: 'reused' }, 'the second finds the token spent a grace before its own time')
    t.equal((await store.findRefreshToken('early'))?.revokedAt, now + GRACE_MS, 'the first one\'s successor is revoked')
    t.equal(await store.findRefreshToken('late'), null, 'no successor of the reuse')
  })

  t.test('instances starting at once on an empty database migrate it exactly once', async (t) => {
    const url = await server.createDatabase()
    const stores = await Promise.all(Array.from({ length: 5 }, () => open(t, url)))
    t.equal(stores.length, 5, 'every instance started')
    const versions = await query<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version')
    t.same(versions.map((row) => row.version), POSTGRES_MIGRATIONS.map((_, index) => index + 1))
    const locks = await query(url, `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ${MIGRATION_LOCK_KEY % 2 ** 32}`)
    t.same(locks, [], 'the migration lock is released')
  })

  t.test('an instance started on a migrated database keeps its data and runs nothing again', async (t) => {
    const url = await server.createDatabase()
    const first = await PostgresAccountStore.open({ connectionString: url, onIdleError: () => {} })
    const result = await first.createAccount({ email: 'kept@example.com', firstName: null, lastName: null, passwordHash: 'h', googleSubject: null })
    await first.close()
    const [before] = await query<{ applied_at: Date }>(url, 'SELECT max(applied_at) AS applied_at FROM schema_migrations')

    const second = await open(t, url)
    t.same(await second.findAccountByEmail('KEPT@example.com'), 'created' in result ? result.created : null)
    const [after] = await query<{ applied_at: Date }>(url, 'SELECT max(applied_at) AS applied_at FROM schema_migrations')
    t.same(after, before, 'no migration ran again')
  })

  t.test('opening a database keyed the old way re-keys its accounts, and names an account whose address now reads as another\'s', async (t) => {
    const url = await server.createDatabase()
    // The schema before verified addresses and NFKC keys with IDNA domains, with keys as that version wrote them (NFC, lower case).
    await migrateTo(url, POSTGRES_MIGRATIONS.indexOf(rekeyEmails) - 1)
    await query(url, `INSERT INTO accounts (id, email, email_key, password_hash, created_at) VALUES
        ('real', 'n3x@b.co', 'n3x@b.co', 'h1', 2),
        ('squatter', 'n3x@ｂ.co', 'n3x@ｂ.co', 'h2', 1),
        ('idn', 'Ann@Bücher.example', 'ann@bücher.example', 'h3', 3);`)

    const store = await open(t, url)
    t.same(store.emailKeyConflicts, [{ id: 'squatter', keptBy: 'real' }])
    t.equal((await store.findAccountByEmail('n3x@ｂ.co'))?.id, 'real', 'the look-alike finds the real account, not the squatter\'s')
    t.equal((await store.findAccountByEmail('ann@xn--bcher-kva.example'))?.id, 'idn', 'the punycode form finds the account')
    t.equal((await store.findAccountByEmail('ann@bücher.example'))?.id, 'idn', 'and so does the Unicode form, as before')
    t.equal((await store.findAccountById('real'))?.emailVerifiedAt, null, 'an account from before has no verified address')
  })

  t.test('opening a database one schema version behind brings it up to date and keeps its accounts, memberships and tokens', async (t) => {
    const url = await server.createDatabase()
    await migrateTo(url, POSTGRES_MIGRATIONS.length - 1)
    await query(url, `INSERT INTO accounts (id, email, email_key, first_name, last_name, password_hash, google_subject, email_verified_at, created_at)
        VALUES ('kept', 'Kept@example.com', 'kept@example.com', 'Ada', 'Lovelace', 'h', 'google-kept', 1000, 1);
      INSERT INTO memberships (account_id, organization) VALUES ('kept', 'acme');
      INSERT INTO refresh_tokens (token_hash, account_id, family_id, expires_at, context) VALUES ('refresh-kept', 'kept', 'f', 9000000000000, '{}');
      INSERT INTO reset_tokens (token_hash, account_id, expires_at, created_at) VALUES ('reset-kept', 'kept', 9000000000000, 2);`)

    const store = await open(t, url)
    t.same(await store.findAccountByEmail('kept@EXAMPLE.com'), {
      id: 'kept', email: 'Kept@example.com', firstName: 'Ada', lastName: 'Lovelace', passwordHash: 'h',
      googleSubject: 'google-kept', emailVerifiedAt: 1000, createdAt: 1
    })
    t.same(await store.listMemberships('kept'), ['acme'])
    t.equal((await store.findRefreshToken('refresh-kept'))?.revokedAt, null)
    t.equal(await store.consumeResetToken('reset-kept', 3), 'kept')
    await store.insertEmailLink({ tokenHash: 'link', accountId: 'kept', purpose: 'verify-email', expiresAt: 9_000_000_000_000 }, 3)
    t.equal((await store.consumeEmailLink('verify-email', 'link', 4))?.accountId, 'kept', 'the new tables are there')
    t.equal(await store.rememberBrowser('kept', 'browser', 4), 'first')
    t.equal(await store.takeNoticeSlot('kept', 'new-browser', 4, 1000), true)
    t.equal(await store.spendGoogleToken('jti:kept', 9_000_000_000_000, 4), true, 'the table of spent Google tokens is there')
    const versions = await query<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version')
    t.same(versions.map((row) => row.version), POSTGRES_MIGRATIONS.map((_, index) => index + 1))
  })

  t.test('a database from a newer version is refused, and left as it was', async (t) => {
    const url = await server.createDatabase()
    await (await PostgresAccountStore.open({ connectionString: url, onIdleError: () => {} })).close()
    await query(url, `INSERT INTO schema_migrations (version) VALUES (${POSTGRES_MIGRATIONS.length + 1})`)
    await t.rejects(PostgresAccountStore.open({ connectionString: url, onIdleError: () => {} }), {
      message: `the accounts database has schema version ${POSTGRES_MIGRATIONS.length + 1}, newer than this version of Threshold knows (${POSTGRES_MIGRATIONS.length}); upgrade Threshold`
    })
    t.equal((await query<{ count: string }>(url, 'SELECT COUNT(*) AS count FROM schema_migrations'))[0]!.count, String(POSTGRES_MIGRATIONS.length + 1))
  })

  t.test('a failing migration leaves the database as it was and fails the opening', async (t) => {
    const url = await server.createDatabase()
    // A table in the way of the first migration, as a half-done manual change would leave.
    await query(url, 'CREATE TABLE accounts (something_else TEXT)')
    await t.rejects(PostgresAccountStore.open({ connectionString: url, onIdleError: () => {} }), /already exists/)
    t.same(await query(url, 'SELECT version FROM schema_migrations'), [], 'no version recorded')
    t.same(await query(url, "SELECT 1 FROM pg_tables WHERE tablename = 'memberships'"), [], 'nothing of it was kept')
  })
})

t.test('a PostgreSQL restart', { skip: postgresSkip }, async (t) => {
  t.test('breaks no request after it: idle connections are reported, not thrown, and replaced', async (t) => {
    const server = await startPostgresServer(t)
    const idleErrors: Error[] = []
    const store = await open(t, await server.createDatabase(), idleErrors)
    const id = (await store.createAccount({ email: 'a@example.com', firstName: null, lastName: null, passwordHash: 'h', googleSubject: null }))
    await Promise.all(Array.from({ length: 5 }, () => store.listMemberships('warm-up-the-pool')))

    await server.stop()
    await t.rejects(store.findAccountByEmail('a@example.com'), 'a request during the outage fails')
    await server.start()

    t.same(await store.findAccountByEmail('a@example.com'), 'created' in id ? id.created : null, 'the next request works')
    t.ok(idleErrors.length >= 1, `idle connection errors were reported (${idleErrors.length})`)
  })
})
