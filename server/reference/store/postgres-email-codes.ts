import type { EmailCodeStore } from './account-store.js'
import { emailCodeValues, retryAtAfter, toEmailCode, type EmailCodeRow } from './email-code-rows.js'
import type { PostgresAccess } from './postgres-oidc.js'

/** The twin of SQLITE_EMAIL_CODE_MIGRATION (server/reference/store/sqlite-email-codes.ts). */
export const POSTGRES_EMAIL_CODE_MIGRATION = `CREATE TABLE email_codes (
     id TEXT PRIMARY KEY,
     address_hash TEXT NOT NULL,
     code_hash TEXT NOT NULL,
     binding_hash TEXT NOT NULL,
     purpose TEXT NOT NULL,
     account_id TEXT,
     range_hash TEXT NOT NULL,
     tries INTEGER NOT NULL DEFAULT 0,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     used_at BIGINT,
     voided_at BIGINT
   );
   CREATE INDEX email_codes_by_address ON email_codes(address_hash, created_at);
   CREATE INDEX email_codes_by_range ON email_codes(range_hash, created_at);
   CREATE TABLE email_code_failures (
     address_hash TEXT NOT NULL,
     failed_at BIGINT NOT NULL
   );
   CREATE INDEX email_code_failures_by_address ON email_code_failures(address_hash, failed_at);`

/** A code still usable at `$n`. */
const live = (now: string): string => `used_at IS NULL AND voided_at IS NULL AND expires_at > ${now}`

/**
 * Two advisory locks' keys per send (the address's and the range's): sends
 * for one address, or from one range, then count and insert one after the
 * other, as SQLite's single writer does. hashtext is PostgreSQL's own.
 */
const LOCK_SENDS = "SELECT pg_advisory_xact_lock(hashtext('email-code-address:' || $1)), pg_advisory_xact_lock(hashtext('email-code-range:' || $2))"

export function postgresEmailCodes (db: PostgresAccess): EmailCodeStore {
  return {
    async issue (code, limits, now, replaces) {
      return await db.inTransaction(async (client) => {
        await client.query(LOCK_SENDS, [code.addressHash, code.rangeHash])
        const since = now - limits.windowMs
        const byAddress = (await client.query<{ created_at: number }>('SELECT created_at FROM email_codes WHERE address_hash = $1 AND created_at > $2',
          [code.addressHash, since])).rows.map((row) => Number(row.created_at))
        if (byAddress.length >= limits.perAddress) return { refused: 'address' as const, retryAt: retryAtAfter(byAddress, limits.perAddress, limits.windowMs) }
        const byRange = (await client.query<{ created_at: number }>('SELECT created_at FROM email_codes WHERE range_hash = $1 AND created_at > $2',
          [code.rangeHash, since])).rows.map((row) => Number(row.created_at))
        if (byRange.length >= limits.perRange) return { refused: 'range' as const, retryAt: retryAtAfter(byRange, limits.perRange, limits.windowMs) }
        if (replaces !== null) {
          await client.query(`UPDATE email_codes SET voided_at = $1 WHERE address_hash = $2 AND purpose = $3 AND binding_hash = $4 AND ${live('$1')}`,
            [now, code.addressHash, code.purpose, replaces])
        }
        await client.query(`INSERT INTO email_codes (id, address_hash, code_hash, binding_hash, purpose, account_id, range_hash, created_at, expires_at)
                            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, emailCodeValues(code))
        return { issued: true as const }
      })
    },
    async findLive (addressHash, purpose, now) {
      const { rows } = await db.pool().query<EmailCodeRow>(
        `SELECT * FROM email_codes WHERE address_hash = $1 AND purpose = $2 AND ${live('$3')} ORDER BY created_at DESC`, [addressHash, purpose, now])
      return rows.map(toEmailCode)
    },
    async countTry (id, maxTries, now) {
      const { rowCount } = await db.pool().query(`UPDATE email_codes SET tries = tries + 1 WHERE id = $1 AND tries < $2 AND ${live('$3')}`, [id, maxTries, now])
      return rowCount === 1
    },
    async use (id, now) {
      const { rowCount } = await db.pool().query(`UPDATE email_codes SET used_at = $1 WHERE id = $2 AND ${live('$1')}`, [now, id])
      return rowCount === 1
    },
    async voidCode (id, now) {
      await db.pool().query('UPDATE email_codes SET voided_at = $1 WHERE id = $2 AND voided_at IS NULL', [now, id])
    },
    async voidAddress (addressHash, now) {
      const { rowCount } = await db.pool().query(`UPDATE email_codes SET voided_at = $1 WHERE address_hash = $2 AND ${live('$1')}`, [now, addressHash])
      return rowCount ?? 0
    },
    async recordFailure (addressHash, now) {
      await db.pool().query('INSERT INTO email_code_failures (address_hash, failed_at) VALUES ($1, $2)', [addressHash, now])
    },
    async failuresSince (addressHash, since) {
      const { rows } = await db.pool().query<{ failed_at: number }>(
        'SELECT failed_at FROM email_code_failures WHERE address_hash = $1 AND failed_at > $2 ORDER BY failed_at DESC', [addressHash, since])
      return rows.map((row) => Number(row.failed_at))
    }
  }
}
