import type pg from 'pg'
import type { OidcClient } from '../oidc/oidc-clients.js'
import type { OidcClientStore, OidcPayloadRecord, OidcPayloadStore } from './account-store.js'
import { oidcClientValues, oidcPayloadValues, toOidcClient, toOidcPayload, type OidcClientRow, type OidcPayloadRow } from './oidc-rows.js'

/** The twin of SQLITE_OIDC_MIGRATION (server/reference/store/sqlite-oidc.ts). */
export const POSTGRES_OIDC_MIGRATION = `CREATE TABLE oidc_clients (
     client_id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     redirect_uris TEXT NOT NULL,
     post_logout_redirect_uris TEXT NOT NULL,
     client_uri TEXT,
     backchannel_logout_uri TEXT,
     first_party BOOLEAN NOT NULL,
     auth_method TEXT NOT NULL,
     secret_sha256 TEXT,
     created_at BIGINT NOT NULL
   );
   CREATE TABLE oidc_payloads (
     model TEXT NOT NULL,
     id TEXT NOT NULL,
     payload TEXT NOT NULL,
     grant_id TEXT,
     uid TEXT,
     user_code TEXT,
     client_id TEXT,
     expires_at BIGINT,
     consumed_at BIGINT,
     PRIMARY KEY (model, id)
   );
   CREATE INDEX oidc_payloads_by_grant ON oidc_payloads(grant_id);
   CREATE INDEX oidc_payloads_by_uid ON oidc_payloads(model, uid);
   CREATE INDEX oidc_payloads_by_user_code ON oidc_payloads(model, user_code);
   CREATE INDEX oidc_payloads_by_client ON oidc_payloads(client_id);
   CREATE INDEX oidc_payloads_by_expiry ON oidc_payloads(expires_at);`

/** What the PostgreSQL store lends these tables: its pool (which refuses while the schema is not migrated) and its transactions. */
export interface PostgresAccess {
  pool (): pg.Pool
  inTransaction<T> (work: (client: pg.PoolClient) => Promise<T>): Promise<T>
  now (): number
}

export function postgresOidcClients (db: PostgresAccess): OidcClientStore {
  return {
    async add (client: OidcClient) {
      const { rowCount } = await db.pool().query(
        `INSERT INTO oidc_clients (client_id, name, redirect_uris, post_logout_redirect_uris, client_uri, backchannel_logout_uri,
         first_party, auth_method, secret_sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (client_id) DO NOTHING`, [...oidcClientValues(client), db.now()])
      return rowCount === 1
    },
    async list () {
      return (await db.pool().query<OidcClientRow>('SELECT * FROM oidc_clients ORDER BY client_id')).rows.map(toOidcClient)
    },
    async any () {
      return (await db.pool().query('SELECT 1 FROM oidc_clients LIMIT 1')).rowCount === 1
    },
    async remove (clientId: string) {
      return await db.inTransaction(async (client) => {
        await client.query('DELETE FROM oidc_payloads WHERE client_id = $1', [clientId])
        return (await client.query('DELETE FROM oidc_clients WHERE client_id = $1', [clientId])).rowCount === 1
      })
    },
    async find (clientId: string) {
      const row = (await db.pool().query<OidcClientRow>('SELECT * FROM oidc_clients WHERE client_id = $1', [clientId])).rows[0]
      return row === undefined ? null : toOidcClient(row)
    }
  }
}

export function postgresOidcPayloads (db: PostgresAccess): OidcPayloadStore {
  const findBy = (column: 'id' | 'uid' | 'user_code') => async (model: string, value: string, now: number): Promise<OidcPayloadRecord | null> =>
    toOidcPayload((await db.pool().query<OidcPayloadRow>(
      `SELECT * FROM oidc_payloads WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > $3)`, [model, value, now])).rows[0])
  return {
    async upsert (record) {
      await db.pool().query(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, user_code, client_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
         user_code = excluded.user_code, client_id = excluded.client_id, expires_at = excluded.expires_at`, oidcPayloadValues(record))
    },
    find: findBy('id'),
    findByUid: findBy('uid'),
    findByUserCode: findBy('user_code'),
    async consume (model, id, now) {
      await db.pool().query('UPDATE oidc_payloads SET consumed_at = COALESCE(consumed_at, $1) WHERE model = $2 AND id = $3', [now, model, id])
    },
    async destroy (model, id) {
      await db.pool().query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [model, id])
    },
    async revokeByGrantId (grantId) {
      await db.pool().query('DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId])
    }
  }
}
