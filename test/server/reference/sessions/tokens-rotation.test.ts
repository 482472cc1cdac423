import Database from 'better-sqlite3'
import t from 'tap'
import { databaseFile } from '../../../../server/reference/store/open-store.js'
import { successorRefusedSpendsNothing } from '../../../fixtures/sessions/token-rotation.js'

// The spend of a refresh token and its successor are one transaction (AccountStore.rotateRefreshToken).
// On PostgreSQL, with a caller gone before the rotation too: tokens-rotation-on-postgres.integration.test.ts.

t.test('a refresh whose successor cannot be stored spends nothing (SQLite)', async (t) => {
  await successorRefusedSpendsNothing(t, 'sqlite', {}, async (dataDir, sql) => {
    // Another connection to the service's file, as an operator's sqlite3 would be.
    const db = new Database(databaseFile(dataDir))
    try {
      db.exec(sql)
    } finally {
      db.close()
    }
  })
})
