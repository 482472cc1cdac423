import type Database from 'better-sqlite3'
import type { OidcClient } from '../oidc/oidc-clients.js'
import type { OidcClientStore, OidcPayloadRecord, OidcPayloadStore } from './account-store.js'
import { oidcClientValues, oidcPayloadValues, toOidcClient, toOidcPayload, type OidcClientRow, type OidcPayloadRow } from './oidc-rows.js'

/** The OpenID Connect provider's tables in the SQLite store (created by SQLITE_MIGRATIONS). */
export const SQLITE_OIDC_MIGRATION = `CREATE TABLE oidc_clients (
     client_id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     redirect_uris TEXT NOT NULL,
     post_logout_redirect_uris TEXT NOT NULL,
     client_uri TEXT,
     backchannel_logout_uri TEXT,
     first_party INTEGER NOT NULL,
     auth_method TEXT NOT NULL,
     secret_sha256 TEXT,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE oidc_payloads (
     model TEXT NOT NULL,
     id TEXT NOT NULL,
     payload TEXT NOT NULL,
     grant_id TEXT,
     uid TEXT,
     user_code TEXT,
     client_id TEXT,
     expires_at INTEGER,
     consumed_at INTEGER,
     PRIMARY KEY (model, id)
   );
   CREATE INDEX oidc_payloads_by_grant ON oidc_payloads(grant_id);
   CREATE INDEX oidc_payloads_by_uid ON oidc_payloads(model, uid);
   CREATE INDEX oidc_payloads_by_user_code ON oidc_payloads(model, user_code);
   CREATE INDEX oidc_payloads_by_client ON oidc_payloads(client_id);
   CREATE INDEX oidc_payloads_by_expiry ON oidc_payloads(expires_at);`

const LIVE = '(expires_at IS NULL OR expires_at > ?)'

export function sqliteOidcClients (db: Database.Database, now: () => number): OidcClientStore {
  return {
    async add (client: OidcClient) {
      // SQLite keeps booleans as 0 and 1.
      const values = oidcClientValues(client).map((value) => typeof value === 'boolean' ? Number(value) : value)
      return db.prepare(`INSERT OR IGNORE INTO oidc_clients (client_id, name, redirect_uris, post_logout_redirect_uris, client_uri,
                         backchannel_logout_uri, first_party, auth_method, secret_sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(...values, now()).changes === 1
    },
    async list () {
      return (db.prepare('SELECT * FROM oidc_clients ORDER BY client_id').all() as OidcClientRow[]).map(toOidcClient)
    },
    async any () {
      return db.prepare('SELECT 1 FROM oidc_clients LIMIT 1').get() !== undefined
    },
    async remove (clientId: string) {
      return db.transaction(() => {
        db.prepare('DELETE FROM oidc_payloads WHERE client_id = ?').run(clientId)
        return db.prepare('DELETE FROM oidc_clients WHERE client_id = ?').run(clientId).changes === 1
      }).immediate()
    },
    async find (clientId: string) {
      const row = db.prepare('SELECT * FROM oidc_clients WHERE client_id = ?').get(clientId) as OidcClientRow | undefined
      return row === undefined ? null : toOidcClient(row)
    }
  }
}

export function sqliteOidcPayloads (db: Database.Database): OidcPayloadStore {
  const findBy = (column: 'id' | 'uid' | 'user_code') => async (model: string, value: string, now: number): Promise<OidcPayloadRecord | null> =>
    toOidcPayload(db.prepare(`SELECT * FROM oidc_payloads WHERE model = ? AND ${column} = ? AND ${LIVE}`).get(model, value, now) as OidcPayloadRow | undefined)
  return {
    async upsert (record) {
      db.prepare(`INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, user_code, client_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                  ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
                  user_code = excluded.user_code, client_id = excluded.client_id, expires_at = excluded.expires_at`)
        .run(...oidcPayloadValues(record))
    },
    find: findBy('id'),
    findByUid: findBy('uid'),
    findByUserCode: findBy('user_code'),
    async consume (model, id, now) {
      db.prepare('UPDATE oidc_payloads SET consumed_at = COALESCE(consumed_at, ?) WHERE model = ? AND id = ?').run(now, model, id)
    },
    async destroy (model, id) {
      db.prepare('DELETE FROM oidc_payloads WHERE model = ? AND id = ?').run(model, id)
    },
    async revokeByGrantId (grantId) {
      db.prepare('DELETE FROM oidc_payloads WHERE grant_id = ?').run(grantId)
    }
  }
}
