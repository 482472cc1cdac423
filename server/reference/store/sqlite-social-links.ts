import type Database from 'better-sqlite3'
import type { SocialLinkStore } from './account-store.js'
import { socialLinkValues, toSocialLink, type SocialLinkRow } from './social-link-rows.js'

/**
 * The linked social identities in the SQLite store (created by
 * SQLITE_MIGRATIONS): one row per (provider, subject), one per (account,
 * provider); an account's deletion removes its links (ON DELETE CASCADE).
 */
export const SQLITE_SOCIAL_LINK_MIGRATION = `CREATE TABLE social_links (
     provider TEXT NOT NULL,
     subject TEXT NOT NULL,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     email TEXT NOT NULL,
     linked_at INTEGER NOT NULL,
     PRIMARY KEY (provider, subject),
     CONSTRAINT social_links_account_provider UNIQUE (account_id, provider)
   );`

export function sqliteSocialLinks (db: Database.Database): SocialLinkStore {
  return {
    async link (link) {
      // One transaction: which pair is taken is read beside the insert, so the answer names the right one.
      return db.transaction(() => {
        if (db.prepare('SELECT 1 FROM social_links WHERE provider = ? AND subject = ?').get(link.provider, link.subject) !== undefined) return 'identity-taken' as const
        if (db.prepare('SELECT 1 FROM social_links WHERE account_id = ? AND provider = ?').get(link.accountId, link.provider) !== undefined) return 'provider-taken' as const
        db.prepare('INSERT INTO social_links (provider, subject, account_id, email, linked_at) VALUES (?, ?, ?, ?, ?)').run(...socialLinkValues(link))
        return 'linked' as const
      }).immediate()
    },
    async find (provider, subject) {
      return toSocialLink(db.prepare('SELECT * FROM social_links WHERE provider = ? AND subject = ?').get(provider, subject) as SocialLinkRow | undefined)
    },
    async list (accountId) {
      return (db.prepare('SELECT * FROM social_links WHERE account_id = ? ORDER BY linked_at, provider').all(accountId) as SocialLinkRow[])
        .map((row) => toSocialLink(row)!)
    },
    async unlink (accountId, provider) {
      return db.prepare('DELETE FROM social_links WHERE account_id = ? AND provider = ?').run(accountId, provider).changes === 1
    }
  }
}
