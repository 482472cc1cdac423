import pg from 'pg'
import t from 'tap'
import { hashToken } from '../../../../server/reference/sessions/tokens.js'
import { holdTableLock, pollUntil, postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { GRACE_SECONDS, refresh, signedIn, successorRefusedSpendsNothing } from '../../../fixtures/sessions/token-rotation.js'

// The spend of a refresh token and its successor are one transaction (AccountStore.rotateRefreshToken):
// a refresh that fails, or whose caller has gone before it rotates, leaves the token as it was.

/** The edge's wait for the service in the test of a caller gone: long enough for a sign-in on a busy machine. */
const UPSTREAM_TIMEOUT_MS = 3000

t.test('with a real PostgreSQL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)

  t.test('a refresh whose successor cannot be stored spends nothing (PostgreSQL)', async (t) => {
    const databaseUrl = await server.createDatabase()
    await successorRefusedSpendsNothing(t, 'postgres', { DATABASE_URL: databaseUrl }, async (_dataDir, sql) => {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      try {
        await client.query(sql)
      } finally {
        await client.end()
      }
    })
  })

  t.test('a refresh whose caller has gone (the edge answered 504) before it rotates leaves the token unspent for the retry', async (t) => {
    const databaseUrl = await server.createDatabase()
    const { base, clock, logs, services, first } = await signedIn(t, 'gone@example.com',
      { DATABASE_URL: databaseUrl }, { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) })

    // Another session holds the memberships, which the refresh reads before it rotates: it waits there.
    const { blocker, waitingBackend } = await holdTableLock(t, databaseUrl, 'memberships')
    const answering = refresh(base, first.refresh)
    t.ok(await waitingBackend(UPSTREAM_TIMEOUT_MS), 'the refresh waits on the lock')
    t.equal((await answering).status, 504, 'the edge gives up on it and closes its connection to the service')
    // The close reaches the service over loopback long before this.
    await new Promise((resolve) => setTimeout(resolve, 250))
    await blocker.query('ROLLBACK')
    t.ok(await pollUntil(async () => logs.lines.some((line) => line.reason === 'client-gone'), 5000), 'the service notices, and stops')
    t.equal((await services.store.findRefreshToken(hashToken(first.refresh)))?.usedAt, null, 'the token is not spent')

    clock.passSeconds(GRACE_SECONDS + 1)
    const retried = await refresh(base, first.refresh)
    t.equal(retried.status, 200, 'the retry, even after the grace, rotates it')
    t.equal((await services.store.findRefreshToken(hashToken(first.refresh)))?.usedAt, clock.now(), 'as its first use')
  })
})
