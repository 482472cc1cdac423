import pg from 'pg'
import t from 'tap'
import { postgresSkip, startPostgresServer } from '../../fixtures/postgres-server.js'
import { successorRefusedSpendsNothing } from '../../fixtures/token-rotation.js'

// The spend of a refresh token and its successor are one transaction (AccountStore.rotateRefreshToken):
// a refresh that fails leaves the token as it was.

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
})
