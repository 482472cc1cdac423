import type Database from 'better-sqlite3'
import type { EmailCodeStore } from './account-store.js'
import { emailCodeValues, retryAtAfter, toEmailCode, type EmailCodeRow } from './email-code-rows.js'

/**
 * The emailed codes' tables in the SQLite store (created by SQLITE_MIGRATIONS):
 * the codes, keyed by nothing that reads back as an address, and the refused
 * tries per address, counted over the last hour.
 */
export const SQLITE_EMAIL_CODE_MIGRATION = `CREATE TABLE email_codes (
     id TEXT PRIMARY KEY,
     address_hash TEXT NOT NULL,
     code_hash TEXT NOT NULL,
     binding_hash TEXT NOT NULL,
     purpose TEXT NOT NULL,
     account_id TEXT,
     range_hash TEXT NOT NULL,
     tries INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at INTEGER,
     voided_at INTEGER
   );
   CREATE INDEX email_codes_by_address ON email_codes(address_hash, created_at);
   CREATE INDEX email_codes_by_range ON email_codes(range_hash, created_at);
   CREATE TABLE email_code_failures (
     address_hash TEXT NOT NULL,
     failed_at INTEGER NOT NULL
   );
   CREATE INDEX email_code_failures_by_address ON email_code_failures(address_hash, failed_at);`

/** A code still usable at `?`. */
const LIVE = 'used_at IS NULL AND voided_at IS NULL AND expires_at > ?'

export function sqliteEmailCodes (db: Database.Database): EmailCodeStore {
  return {
    async issue (code, limits, now, replaces) {
      return db.transaction(() => {
        const since = now - limits.windowMs
        const byAddress = (db.prepare('SELECT created_at FROM email_codes WHERE address_hash = ? AND created_at > ?')
          .all(code.addressHash, since) as Array<{ created_at: number }>).map((row) => row.created_at)
        if (byAddress.length >= limits.perAddress) return { refused: 'address' as const, retryAt: retryAtAfter(byAddress, limits.perAddress, limits.windowMs) }
        const byRange = (db.prepare('SELECT created_at FROM email_codes WHERE range_hash = ? AND created_at > ?')
          .all(code.rangeHash, since) as Array<{ created_at: number }>).map((row) => row.created_at)
        if (byRange.length >= limits.perRange) return { refused: 'range' as const, retryAt: retryAtAfter(byRange, limits.perRange, limits.windowMs) }
        if (replaces !== null) {
          db.prepare(`UPDATE email_codes SET voided_at = ? WHERE address_hash = ? AND purpose = ? AND binding_hash = ? AND ${LIVE}`)
            .run(now, code.addressHash, code.purpose, replaces, now)
        }
        db.prepare(`INSERT INTO email_codes (id, address_hash, code_hash, binding_hash, purpose, account_id, range_hash, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...emailCodeValues(code))
        return { issued: true as const }
      }).immediate()
    },
    async findLive (addressHash, purpose, now) {
      return (db.prepare(`SELECT * FROM email_codes WHERE address_hash = ? AND purpose = ? AND ${LIVE} ORDER BY created_at DESC`)
        .all(addressHash, purpose, now) as EmailCodeRow[]).map(toEmailCode)
    },
    async countTry (id, maxTries, now) {
      return db.prepare(`UPDATE email_codes SET tries = tries + 1 WHERE id = ? AND tries < ? AND ${LIVE}`).run(id, maxTries, now).changes === 1
    },
    async use (id, now) {
      return db.prepare(`UPDATE email_codes SET used_at = ? WHERE id = ? AND ${LIVE}`).run(now, id, now).changes === 1
    },
    async voidCode (id, now) {
      db.prepare('UPDATE email_codes SET voided_at = ? WHERE id = ? AND voided_at IS NULL').run(now, id)
    },
    async voidAddress (addressHash, now) {
      return db.prepare(`UPDATE email_codes SET voided_at = ? WHERE address_hash = ? AND ${LIVE}`).run(now, addressHash, now).changes
    },
    async recordFailure (addressHash, now) {
      db.prepare('INSERT INTO email_code_failures (address_hash, failed_at) VALUES (?, ?)').run(addressHash, now)
    },
    async failuresSince (addressHash, since) {
      return (db.prepare('SELECT failed_at FROM email_code_failures WHERE address_hash = ? AND failed_at > ? ORDER BY failed_at DESC')
        .all(addressHash, since) as Array<{ failed_at: number }>).map((row) => row.failed_at)
    }
  }
}
